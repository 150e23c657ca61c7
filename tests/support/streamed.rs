//! The agent asks its backend for whole turns (`LlmBackend::complete`); this adapter
//! answers each from the backend's stream instead, so the agent runs over the
//! streaming path: SSE decoding, deltas, their assembly.

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{ChatRequest, ChatResponse, DeltaAccumulator, LlmBackend, LlmError};

/// `B`, streamed.
#[derive(Debug)]
pub struct Streamed<B>(pub B);

#[async_trait]
impl<B: LlmBackend> LlmBackend for Streamed<B> {
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let mut deltas = self.0.stream(request).await?;
        let mut accumulator = DeltaAccumulator::new();
        while let Some(delta) = deltas.next().await {
            accumulator.push(delta?);
        }
        Ok(accumulator.finish())
    }
}

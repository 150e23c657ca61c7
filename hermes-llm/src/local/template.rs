//! How a conversation becomes the model's prompt: with the chat template in the GGUF
//! metadata, or ChatML when the model has none. The Hermes format's turns (tools in
//! the system turn, `<tool_call>` and `<tool_response>` blocks) are the same either way.

use hermes_core::{Message, ToolChoice};
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use serde_json::Value;

use crate::hermes::prompt;

/// The model's prompt format.
#[derive(Debug)]
pub(crate) enum Template {
    /// ChatML (`<|im_start|>role ... <|im_end|>`): the template says so, or the model
    /// has none.
    ChatMl,
    /// Another template from the GGUF metadata, applied by llama.cpp.
    Model(LlamaChatTemplate),
}

impl Template {
    /// The template of `model`.
    pub(crate) fn of(model: &LlamaModel) -> Self {
        match model.chat_template(None) {
            Ok(template) => match template.to_str() {
                Ok(text) if !text.contains("<|im_start|>") => Self::Model(template),
                _ => Self::ChatMl,
            },
            Err(_) => Self::ChatMl,
        }
    }

    /// The name shown in logs.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Self::ChatMl => "chatml",
            Self::Model(_) => "model",
        }
    }

    /// The prompt for `messages`, ending with the open assistant turn.
    pub(crate) fn render(
        &self,
        model: &LlamaModel,
        messages: &[Message],
        tools: &[Value],
        choice: &ToolChoice,
    ) -> Result<String, String> {
        match self {
            Self::ChatMl => Ok(prompt::render(messages, tools, choice, false)),
            Self::Model(template) => {
                let chat = prompt::turns(messages, tools, choice)
                    .into_iter()
                    .map(|(role, content)| LlamaChatMessage::new(role.to_owned(), content))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|error| format!("a message cannot be passed to llama.cpp: {error}"))?;
                model
                    .apply_chat_template(template, &chat, true)
                    .map_err(|error| format!("the model's chat template failed: {error}"))
            }
        }
    }
}

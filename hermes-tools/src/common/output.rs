//! Bounded text: the gateway's head-and-tail cut, which every tool uses for whole texts
//! (streams use [`HeadTail`](super::head_tail::HeadTail)).

pub(crate) use hermes_core::tool::truncate_middle;

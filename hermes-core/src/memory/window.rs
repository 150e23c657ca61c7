//! [`Window`]: which messages a round sends.

use std::borrow::Cow;
use std::ops::Range;

use crate::Message;

/// Bounds on what the agent sends each round; see the [module docs](super). The
/// default keeps everything.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    max_turns: Option<usize>,
    max_tokens: Option<usize>,
}

impl Window {
    /// No bounds.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keep at most the last `turns` turns (at least one).
    #[must_use]
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = Some(turns.max(1));
        self
    }

    /// Keep the messages within about `tokens` tokens ([`estimate_tokens`]), the
    /// system messages and the current turn's user message always included.
    #[must_use]
    pub fn max_tokens(mut self, tokens: usize) -> Self {
        self.max_tokens = Some(tokens);
        self
    }

    /// Whether the window may leave anything out.
    pub fn is_bounded(&self) -> bool {
        self.max_turns.is_some() || self.max_tokens.is_some()
    }

    /// The messages to send: `messages` itself when nothing is left out.
    pub fn select<'a>(&self, messages: &'a [Message]) -> Cow<'a, [Message]> {
        if !self.is_bounded() {
            return Cow::Borrowed(messages);
        }
        let head = messages
            .iter()
            .take_while(|message| matches!(message, Message::System { .. }))
            .count();
        let turns = turns(messages, head);
        let Some(last) = turns.last() else {
            return Cow::Borrowed(messages);
        };
        let mut first_turn = turns.len() - self.max_turns.unwrap_or(usize::MAX).min(turns.len());
        let cost =
            |range: Range<usize>| -> usize { messages[range].iter().map(estimate_tokens).sum() };
        let fixed = cost(0..head);
        let budget = self.max_tokens.unwrap_or(usize::MAX);
        // Whole turns, oldest first, while over budget (the last turn always stays).
        while first_turn + 1 < turns.len()
            && fixed + cost(turns[first_turn].start..last.end) > budget
        {
            first_turn += 1;
        }
        let mut kept: Vec<Range<usize>> = turns[first_turn..].to_vec();
        // Inside the last turn: its user message, then whole exchanges, oldest dropped
        // first while over budget (the latest exchange always stays).
        if fixed + cost(kept[0].start..last.end) > budget && kept.len() == 1 {
            let turn = kept[0].clone();
            let opening = turn.start..turn.start + usize::from(is_user(&messages[turn.start]));
            let exchanges = exchanges(messages, opening.end..turn.end);
            let mut first = 0;
            while first + 1 < exchanges.len()
                && fixed + cost(opening.clone()) + cost(exchanges[first].start..turn.end) > budget
            {
                first += 1;
            }
            kept = vec![opening];
            kept.extend(
                exchanges
                    .get(first)
                    .map(|exchange| exchange.start..turn.end),
            );
        }
        let selected: usize = kept.iter().map(ExactSizeIterator::len).sum();
        if head + selected == messages.len() {
            return Cow::Borrowed(messages);
        }
        let mut out = Vec::with_capacity(head + selected);
        out.extend_from_slice(&messages[..head]);
        for range in kept {
            out.extend_from_slice(&messages[range]);
        }
        Cow::Owned(out)
    }
}

/// The turns after the first `head` messages: each starts at a user message (the first
/// one also at whatever precedes the first user message).
fn turns(messages: &[Message], head: usize) -> Vec<Range<usize>> {
    let mut turns: Vec<Range<usize>> = Vec::new();
    for (index, message) in messages.iter().enumerate().skip(head) {
        match turns.last_mut() {
            Some(turn) if !is_user(message) => turn.end = index + 1,
            _ => turns.push(index..index + 1),
        }
    }
    turns
}

/// The exchanges in `range`: each starts at an assistant message and holds the tool
/// results (and anything else) up to the next one.
fn exchanges(messages: &[Message], range: Range<usize>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for index in range {
        match out.last_mut() {
            Some(exchange) if !matches!(messages[index], Message::Assistant(_)) => {
                exchange.end = index + 1;
            }
            _ => out.push(index..index + 1),
        }
    }
    out
}

fn is_user(message: &Message) -> bool {
    matches!(message, Message::User { .. })
}

/// About how many tokens `message` costs: a quarter of its bytes (content, call names
/// and arguments), plus a few for the message's framing. Close enough to trim by; for
/// exact counts use the model's tokenizer.
pub fn estimate_tokens(message: &Message) -> usize {
    const FRAMING: usize = 4;
    let bytes = match message {
        Message::System { content } | Message::User { content } => content.len(),
        Message::Assistant(assistant) => {
            assistant.content.as_ref().map_or(0, String::len)
                + assistant
                    .tool_calls
                    .iter()
                    .map(|call| call.name().len() + call.arguments().len() + 16)
                    .sum::<usize>()
        }
        Message::Tool(result) => result.content.len() + result.tool_call_id.len(),
    };
    FRAMING + bytes.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ToolCall;

    fn conversation() -> Vec<Message> {
        vec![
            Message::system("system"),
            Message::user("q1"),
            Message::assistant("a1"),
            Message::user("q2"),
            Message::tool_calls([ToolCall::new("c1", "calc", r#"{"expression":"1+1"}"#)]),
            Message::tool("c1", "calc", "2"),
            Message::tool_calls([
                ToolCall::new("c2", "calc", r#"{"expression":"2+2"}"#),
                ToolCall::new("c3", "calc", r#"{"expression":"3+3"}"#),
            ]),
            Message::tool("c2", "calc", "4"),
            Message::tool("c3", "calc", "6"),
        ]
    }

    /// Every call has its result and every result its call.
    fn paired(messages: &[Message]) -> bool {
        let calls: Vec<&str> = messages
            .iter()
            .flat_map(|m| m.calls().iter().map(|c| c.id.as_str()))
            .collect();
        let results: Vec<&str> = messages
            .iter()
            .filter_map(|m| match m {
                Message::Tool(result) => Some(result.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        calls.len() == results.len() && calls.iter().all(|id| results.contains(id))
    }

    #[test]
    fn unbounded_sends_everything_borrowed() {
        let messages = conversation();
        assert!(matches!(Window::new().select(&messages), Cow::Borrowed(_)));
        assert!(matches!(
            Window::new().max_turns(5).select(&messages),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn turns_are_dropped_whole_keeping_the_system_prompt() {
        let messages = conversation();
        let sent = Window::new().max_turns(1).select(&messages);
        assert_eq!(sent.len(), 7);
        assert!(matches!(sent[0], Message::System { .. }));
        assert!(matches!(&sent[1], Message::User { content } if content == "q2"));
        assert!(paired(&sent));
    }

    #[test]
    fn a_token_budget_drops_old_turns_then_old_exchanges_never_splitting_a_pair() {
        let messages = conversation();
        let total: usize = messages.iter().map(estimate_tokens).sum();
        for budget in 0..=total {
            let sent = Window::new().max_tokens(budget).select(&messages);
            assert!(paired(&sent), "budget {budget}: {sent:?}");
            assert!(matches!(sent[0], Message::System { .. }), "budget {budget}");
            // The current question and the latest exchange always go.
            assert!(
                sent.iter()
                    .any(|m| matches!(m, Message::User { content } if content == "q2"))
            );
            assert!(
                sent.iter()
                    .any(|m| matches!(m, Message::Tool(r) if r.tool_call_id == "c3"))
            );
        }
        // The tightest budget: system, q2, the last exchange.
        let sent = Window::new().max_tokens(0).select(&messages);
        assert_eq!(sent.len(), 5, "{sent:?}");
        // A roomy one: everything.
        assert_eq!(
            Window::new().max_tokens(total).select(&messages).len(),
            messages.len()
        );
    }
}

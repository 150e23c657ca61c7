//! Checks on a run's messages.

use std::collections::HashMap;

use hermes_core::Message;

/// Every call of every assistant message is answered by exactly one tool message with
/// its id, before the next assistant message, and every tool message answers a call of
/// the assistant message before it. The problems found, if any.
pub fn check_call_ids(messages: &[Message]) -> Result<(), String> {
    let mut problems = Vec::new();
    // Ids of the current assistant message's calls, with how many answers each got.
    let mut open: HashMap<String, usize> = HashMap::new();
    let close = |open: &mut HashMap<String, usize>, problems: &mut Vec<String>| {
        for (id, answers) in open.drain() {
            if answers != 1 {
                problems.push(format!("call `{id}` got {answers} results"));
            }
        }
    };
    for message in messages {
        match message {
            Message::Assistant(assistant) => {
                close(&mut open, &mut problems);
                for call in &assistant.tool_calls {
                    if call.id.is_empty() {
                        problems.push(format!("a call of `{}` has no id", call.name()));
                    }
                    if open.insert(call.id.clone(), 0).is_some() {
                        problems.push(format!("call id `{}` twice in one message", call.id));
                    }
                }
            }
            Message::Tool(tool) => match open.get_mut(&tool.tool_call_id) {
                Some(answers) => *answers += 1,
                None => problems.push(format!(
                    "tool message for `{}`, which no open call has",
                    tool.tool_call_id
                )),
            },
            _ => {}
        }
    }
    close(&mut open, &mut problems);
    if problems.is_empty() {
        Ok(())
    } else {
        problems.sort();
        Err(problems.join("; "))
    }
}

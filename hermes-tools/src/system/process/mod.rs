//! Background processes: `process_start`, `process_output`, `process_kill` and
//! `process_list`, sharing one [`ProcessTable`] per tool set.
//!
//! A process belongs to the session that started it; other sessions do not see its
//! handle. Each stream's unread output is kept in a bounded ring ([`ring`]). The table
//! kills every process it still holds when the tool set is dropped.

mod background;
mod foreign;
mod kill;
mod list;
mod output;
mod ring;
mod start;
mod table;

pub(crate) use kill::ProcessKill;
pub(crate) use list::ProcessList;
pub(crate) use output::ProcessOutput;
pub(crate) use start::ProcessStart;
pub(crate) use table::ProcessTable;

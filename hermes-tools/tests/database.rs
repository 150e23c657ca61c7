//! Behaviour tests of `database_query`: every call goes through the gateway, against
//! real PostgreSQL and MariaDB servers (`eval "$(scripts/services)"` starts private
//! ones and exports `HERMES_TEST_POSTGRES_URL` / `HERMES_TEST_MYSQL_URL`) and SQLite
//! files in a temporary workspace. Without the variables the server tests skip loudly,
//! unless `CI` is set: then they fail.
#![cfg(feature = "database")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "database/input.rs"]
mod input;
#[path = "database/mysql.rs"]
mod mysql;
#[path = "database/postgres.rs"]
mod postgres;
#[path = "database/servers.rs"]
mod servers;
#[path = "database/sqlite.rs"]
mod sqlite;
#[path = "database/support.rs"]
mod support;

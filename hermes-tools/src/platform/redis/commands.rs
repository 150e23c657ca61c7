//! What a Redis command may do: read, write, reach the whole server, or change the state
//! of the shared connection. Unknown commands count as writes.

/// A command's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// Reads data only (`database:read`).
    Read,
    /// Changes data (`database:write`); also every command not listed.
    Write,
    /// Wipes, reconfigures or stops the server, or runs scripts that could (refused
    /// unless configured, and then `database:write`).
    ServerWide,
    /// Changes the connection every call shares (SELECT, MULTI, SUBSCRIBE...) or blocks
    /// it: never run.
    Connection,
}

/// Commands that only read.
const READ: &[&str] = &[
    "BITCOUNT",
    "BITFIELD_RO",
    "BITPOS",
    "DBSIZE",
    "DUMP",
    "ECHO",
    "EXISTS",
    "EXPIRETIME",
    "GEODIST",
    "GEOHASH",
    "GEOPOS",
    "GEORADIUSBYMEMBER_RO",
    "GEORADIUS_RO",
    "GEOSEARCH",
    "GET",
    "GETBIT",
    "GETRANGE",
    "HEXISTS",
    "HGET",
    "HGETALL",
    "HKEYS",
    "HLEN",
    "HMGET",
    "HRANDFIELD",
    "HSCAN",
    "HSTRLEN",
    "HVALS",
    "INFO",
    "KEYS",
    "LASTSAVE",
    "LCS",
    "LINDEX",
    "LLEN",
    "LOLWUT",
    "LPOS",
    "LRANGE",
    "MGET",
    "OBJECT",
    "PEXPIRETIME",
    "PFCOUNT",
    "PING",
    "PTTL",
    "RANDOMKEY",
    "ROLE",
    "SCAN",
    "SCARD",
    "SDIFF",
    "SINTER",
    "SINTERCARD",
    "SISMEMBER",
    "SMEMBERS",
    "SMISMEMBER",
    "SORT_RO",
    "SRANDMEMBER",
    "SSCAN",
    "STRLEN",
    "SUBSTR",
    "SUNION",
    "TIME",
    "TTL",
    "TYPE",
    "XINFO",
    "XLEN",
    "XPENDING",
    "XRANGE",
    "XREVRANGE",
    "ZCARD",
    "ZCOUNT",
    "ZDIFF",
    "ZINTER",
    "ZINTERCARD",
    "ZLEXCOUNT",
    "ZMSCORE",
    "ZRANDMEMBER",
    "ZRANGE",
    "ZRANGEBYLEX",
    "ZRANGEBYSCORE",
    "ZRANK",
    "ZREVRANGE",
    "ZREVRANGEBYLEX",
    "ZREVRANGEBYSCORE",
    "ZREVRANK",
    "ZSCAN",
    "ZSCORE",
    "ZUNION",
];

/// Commands that reach the whole server, or run code that could.
const SERVER_WIDE: &[&str] = &[
    "ACL",
    "BGREWRITEAOF",
    "BGSAVE",
    "CLIENT",
    "CLUSTER",
    "CONFIG",
    "DEBUG",
    "EVAL",
    "EVALSHA",
    "EVALSHA_RO",
    "EVAL_RO",
    "FAILOVER",
    "FCALL",
    "FCALL_RO",
    "FLUSHALL",
    "FUNCTION",
    "LATENCY",
    "MEMORY",
    "MIGRATE",
    "MODULE",
    "MONITOR",
    "PSYNC",
    "REPLCONF",
    "REPLICAOF",
    "RESTORE",
    "SAVE",
    "SCRIPT",
    "SHUTDOWN",
    "SLAVEOF",
    "SLOWLOG",
    "SWAPDB",
    "SYNC",
];

/// Commands that would change or block the connection every call shares.
const CONNECTION: &[&str] = &[
    "AUTH",
    "BLMOVE",
    "BLMPOP",
    "BLPOP",
    "BRPOP",
    "BRPOPLPUSH",
    "BZMPOP",
    "BZPOPMAX",
    "BZPOPMIN",
    "DISCARD",
    "EXEC",
    "HELLO",
    "MULTI",
    "PSUBSCRIBE",
    "PUNSUBSCRIBE",
    "QUIT",
    "READONLY",
    "READWRITE",
    "RESET",
    "SELECT",
    "SSUBSCRIBE",
    "SUBSCRIBE",
    "SUNSUBSCRIBE",
    "UNSUBSCRIBE",
    "UNWATCH",
    "WAIT",
    "WAITAOF",
    "WATCH",
];

/// The class of `command` (any case); `args` matter for XREAD, which blocks with BLOCK.
pub(crate) fn classify(command: &str, args: &[String]) -> Class {
    let upper = command.to_ascii_uppercase();
    let name = upper.as_str();
    if CONNECTION.contains(&name) {
        return Class::Connection;
    }
    if name == "XREAD" || name == "XREADGROUP" {
        if args.iter().any(|arg| arg.eq_ignore_ascii_case("BLOCK")) {
            return Class::Connection;
        }
        return if name == "XREAD" {
            Class::Read
        } else {
            Class::Write
        };
    }
    if SERVER_WIDE.contains(&name) {
        return Class::ServerWide;
    }
    if READ.contains(&name) {
        return Class::Read;
    }
    Class::Write
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_classified() {
        assert_eq!(classify("get", &[]), Class::Read);
        assert_eq!(classify("HGETALL", &[]), Class::Read);
        assert_eq!(classify("set", &[]), Class::Write);
        assert_eq!(classify("FLUSHDB", &[]), Class::Write);
        assert_eq!(classify("SOMENEWCOMMAND", &[]), Class::Write);
        assert_eq!(classify("flushall", &[]), Class::ServerWide);
        assert_eq!(classify("CONFIG", &[]), Class::ServerWide);
        assert_eq!(classify("select", &[]), Class::Connection);
        assert_eq!(classify("BLPOP", &[]), Class::Connection);
        let block = ["BLOCK".to_owned(), "0".to_owned()];
        assert_eq!(classify("XREAD", &block), Class::Connection);
        assert_eq!(classify("XREAD", &[]), Class::Read);
    }

    #[test]
    fn the_lists_are_sorted_and_disjoint() {
        for list in [READ, SERVER_WIDE, CONNECTION] {
            assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{list:?}");
        }
        for name in READ {
            assert!(
                !SERVER_WIDE.contains(name) && !CONNECTION.contains(name),
                "{name}"
            );
        }
    }
}

//! The server-side request forgery guard: which addresses a tool may reach.
//!
//! A model can be talked into fetching `http://169.254.169.254/` (a cloud metadata
//! service) or a database on the host's loopback. Every address a network tool connects
//! to, after name resolution and on every redirect, goes through
//! [`AddressPolicy::check`]; non-public addresses are refused unless the configuration
//! allows them.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[cfg(feature = "network")]
use crate::NetworkConfig;

/// Which addresses the tools may connect to.
#[derive(Debug, Clone, Default)]
pub(crate) struct AddressPolicy {
    /// Every address is allowed.
    allow_private: bool,
    /// Non-public networks allowed all the same: address and prefix length.
    allowed: Vec<(IpAddr, u8)>,
}

impl AddressPolicy {
    /// The policy `config` sets.
    #[cfg(feature = "network")]
    pub(crate) fn from_config(config: &NetworkConfig) -> Self {
        Self {
            allow_private: config.allow_private,
            allowed: config.allowed_networks.clone(),
        }
    }

    /// A policy allowing every address, for endpoints the operator configured.
    pub(crate) fn trusted() -> Self {
        Self {
            allow_private: true,
            allowed: Vec::new(),
        }
    }

    /// `Ok` if a tool may connect to `ip`.
    ///
    /// # Errors
    ///
    /// [`Blocked`] naming the class of a non-public address the policy does not allow.
    pub(crate) fn check(&self, ip: IpAddr) -> Result<(), Blocked> {
        if self.allow_private {
            return Ok(());
        }
        let Some(class) = classify(ip) else {
            return Ok(());
        };
        let ip = canonical(ip);
        if self
            .allowed
            .iter()
            .any(|&(network, prefix)| contains(network, prefix, ip))
        {
            return Ok(());
        }
        Err(Blocked { address: ip, class })
    }
}

/// A connection refused by the [`AddressPolicy`].
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "{address} is a {class} address, which the network policy does not let tools reach \
     (public addresses only); use a public host, or ask the operator to allow it"
)]
pub(crate) struct Blocked {
    /// The address refused.
    pub(crate) address: IpAddr,
    /// What kind of address it is (`loopback`, `private`...).
    pub(crate) class: &'static str,
}

/// An IPv4 address embedded in an IPv6 one (mapped, compatible, NAT64, 6to4) as
/// itself; any other address unchanged.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => embedded_v4(v6).map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// The IPv4 address an IPv6 address carries, when it is a way of reaching one:
/// `::ffff:a.b.c.d` (mapped), `::a.b.c.d` (compatible, deprecated), `64:ff9b::a.b.c.d`
/// (NAT64) and `2002:aabb:ccdd::/48` (6to4).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        // `::` and `::1` are IPv6's own unspecified and loopback addresses.
        [0, 0, 0, 0, 0, 0, hi, lo] if hi != 0 || lo > 1 => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

/// What kind of non-public address `ip` is, or `None` for a public one.
pub(crate) fn classify(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => classify_v4(v4),
        IpAddr::V6(v6) => match embedded_v4(v6) {
            Some(v4) => classify_v4(v4),
            None => classify_v6(v6),
        },
    }
}

/// Non-public IPv4 ranges (RFC 6890 and friends), most specific first.
const V4_RANGES: &[([u8; 4], u8, &str)] = &[
    ([0, 0, 0, 0], 8, "unspecified"),
    ([10, 0, 0, 0], 8, "private"),
    ([100, 64, 0, 0], 10, "shared (carrier-grade NAT)"),
    ([127, 0, 0, 0], 8, "loopback"),
    ([169, 254, 0, 0], 16, "link-local"),
    ([172, 16, 0, 0], 12, "private"),
    ([192, 0, 0, 0], 24, "IETF protocol assignment"),
    ([192, 0, 2, 0], 24, "documentation"),
    ([192, 88, 99, 0], 24, "6to4 relay"),
    ([192, 168, 0, 0], 16, "private"),
    ([198, 18, 0, 0], 15, "benchmarking"),
    ([198, 51, 100, 0], 24, "documentation"),
    ([203, 0, 113, 0], 24, "documentation"),
    ([224, 0, 0, 0], 4, "multicast"),
    ([240, 0, 0, 0], 4, "reserved"),
];

/// Non-public IPv6 ranges.
const V6_RANGES: &[([u16; 8], u8, &str)] = &[
    ([0, 0, 0, 0, 0, 0, 0, 0], 128, "unspecified"),
    ([0, 0, 0, 0, 0, 0, 0, 1], 128, "loopback"),
    ([0x100, 0, 0, 0, 0, 0, 0, 0], 64, "discard-only"),
    (
        [0x2001, 0, 0, 0, 0, 0, 0, 0],
        23,
        "IETF protocol assignment",
    ),
    ([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0], 32, "documentation"),
    ([0xfc00, 0, 0, 0, 0, 0, 0, 0], 7, "unique local"),
    ([0xfe80, 0, 0, 0, 0, 0, 0, 0], 10, "link-local"),
    ([0xfec0, 0, 0, 0, 0, 0, 0, 0], 10, "site-local"),
    ([0xff00, 0, 0, 0, 0, 0, 0, 0], 8, "multicast"),
];

fn classify_v4(ip: Ipv4Addr) -> Option<&'static str> {
    if ip == Ipv4Addr::BROADCAST {
        return Some("broadcast");
    }
    V4_RANGES.iter().find_map(|&(network, prefix, class)| {
        contains(IpAddr::from(network), prefix, IpAddr::V4(ip)).then_some(class)
    })
}

fn classify_v6(ip: Ipv6Addr) -> Option<&'static str> {
    V6_RANGES.iter().find_map(|&(network, prefix, class)| {
        contains(IpAddr::from(network), prefix, IpAddr::V6(ip)).then_some(class)
    })
}

/// Whether `ip` lies in `network`/`prefix` (never across address families).
fn contains(network: IpAddr, prefix: u8, ip: IpAddr) -> bool {
    match (network, ip) {
        (IpAddr::V4(network), IpAddr::V4(ip)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(prefix.min(32)))
                .unwrap_or(0);
            u32::from(network) & mask == u32::from(ip) & mask
        }
        (IpAddr::V6(network), IpAddr::V6(ip)) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(prefix.min(128)))
                .unwrap_or(0);
            u128::from(network) & mask == u128::from(ip) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Option<&'static str> {
        classify(text.parse().unwrap())
    }

    #[test]
    fn ipv4_ranges_are_classified_at_their_edges() {
        for (address, expected) in [
            ("127.0.0.1", Some("loopback")),
            ("127.255.255.254", Some("loopback")),
            ("10.0.0.0", Some("private")),
            ("10.255.255.255", Some("private")),
            ("172.16.0.1", Some("private")),
            ("172.31.255.255", Some("private")),
            ("172.15.255.255", None),
            ("172.32.0.0", None),
            ("192.168.1.1", Some("private")),
            ("192.169.0.0", None),
            ("169.254.169.254", Some("link-local")),
            ("100.64.0.1", Some("shared (carrier-grade NAT)")),
            ("100.127.255.255", Some("shared (carrier-grade NAT)")),
            ("100.128.0.0", None),
            ("100.63.255.255", None),
            ("0.0.0.0", Some("unspecified")),
            ("0.1.2.3", Some("unspecified")),
            ("198.18.0.1", Some("benchmarking")),
            ("198.19.255.255", Some("benchmarking")),
            ("198.20.0.0", None),
            ("224.0.0.1", Some("multicast")),
            ("239.255.255.250", Some("multicast")),
            ("240.0.0.1", Some("reserved")),
            ("255.255.255.255", Some("broadcast")),
            ("192.0.2.10", Some("documentation")),
            ("8.8.8.8", None),
            ("1.1.1.1", None),
            ("93.184.216.34", None),
        ] {
            assert_eq!(class(address), expected, "{address}");
        }
    }

    #[test]
    fn ipv6_ranges_are_classified() {
        for (address, expected) in [
            ("::1", Some("loopback")),
            ("::", Some("unspecified")),
            ("fe80::1", Some("link-local")),
            ("febf::1", Some("link-local")),
            ("fc00::1", Some("unique local")),
            ("fdff:ffff::1", Some("unique local")),
            ("ff02::1", Some("multicast")),
            ("2001:db8::1", Some("documentation")),
            ("2606:4700:4700::1111", None),
            ("2001:4860:4860::8888", None),
        ] {
            assert_eq!(class(address), expected, "{address}");
        }
    }

    #[test]
    fn ipv4_inside_ipv6_is_judged_as_ipv4() {
        for (address, expected) in [
            ("::ffff:127.0.0.1", Some("loopback")),
            ("::ffff:10.1.2.3", Some("private")),
            ("::ffff:169.254.169.254", Some("link-local")),
            ("::ffff:8.8.8.8", None),
            ("::127.0.0.1", Some("loopback")),
            ("64:ff9b::7f00:1", Some("loopback")),
            ("64:ff9b::808:808", None),
            ("2002:c0a8:0101::1", Some("private")),
            ("2002:0808:0808::1", None),
        ] {
            assert_eq!(class(address), expected, "{address}");
        }
    }

    #[test]
    fn the_policy_refuses_non_public_addresses_by_default() {
        let policy = AddressPolicy::default();
        let blocked = policy.check("127.0.0.1".parse().unwrap()).unwrap_err();
        assert_eq!(blocked.class, "loopback");
        assert!(
            blocked
                .to_string()
                .contains("127.0.0.1 is a loopback address")
        );
        let mapped = policy
            .check("::ffff:127.0.0.1".parse().unwrap())
            .unwrap_err();
        assert_eq!(mapped.address, "127.0.0.1".parse::<IpAddr>().unwrap());
        assert!(policy.check("8.8.8.8".parse().unwrap()).is_ok());
        assert!(
            AddressPolicy::trusted()
                .check("127.0.0.1".parse().unwrap())
                .is_ok()
        );
    }

    #[test]
    #[cfg(feature = "network")]
    fn allowed_networks_open_only_themselves() {
        let config = NetworkConfig::default().allow_network("127.0.0.1".parse().unwrap(), 32);
        let policy = AddressPolicy::from_config(&config);
        assert!(policy.check("127.0.0.1".parse().unwrap()).is_ok());
        assert!(policy.check("::ffff:127.0.0.1".parse().unwrap()).is_ok());
        assert!(policy.check("127.0.0.2".parse().unwrap()).is_err());
        assert!(policy.check("10.0.0.1".parse().unwrap()).is_err());
        let config = NetworkConfig::default().allow_network("fd00::".parse().unwrap(), 8);
        let policy = AddressPolicy::from_config(&config);
        assert!(policy.check("fd12::1".parse().unwrap()).is_ok());
        assert!(policy.check("fe80::1".parse().unwrap()).is_err());
    }

    #[test]
    fn containment_handles_whole_and_empty_prefixes() {
        let any: IpAddr = "0.0.0.0".parse().unwrap();
        assert!(contains(any, 0, "8.8.8.8".parse().unwrap()));
        assert!(!contains(any, 0, "::1".parse().unwrap()));
        let one: IpAddr = "1.2.3.4".parse().unwrap();
        assert!(contains(one, 32, one));
        assert!(!contains(one, 32, "1.2.3.5".parse().unwrap()));
    }
}

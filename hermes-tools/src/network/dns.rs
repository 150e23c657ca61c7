//! `dns_lookup`: the A, AAAA, MX, TXT, CNAME or NS records of a name, from the system's
//! resolver or the configured nameserver.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use hickory_resolver::config::{NameServerConfigGroup, ResolverConfig};
use hickory_resolver::name_server::TokioConnectionProvider;
use hickory_resolver::proto::rr::{RData, RecordType};
use hickory_resolver::{ResolveError, Resolver, TokioResolver};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::web::Web;

/// How long one query waits for an answer.
const QUERY_TIMEOUT: Duration = Duration::from_secs(3);
/// The most records returned.
const MAX_RECORDS: usize = 100;

/// Arguments of `dns_lookup`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The domain name to look up, e.g. `example.com`.
    #[schemars(length(min = 1, max = 253))]
    name: String,
    /// The record type.
    #[serde(default)]
    record_type: Kind,
}

/// The record types asked for.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub(crate) enum Kind {
    /// IPv4 addresses.
    #[default]
    A,
    /// IPv6 addresses.
    Aaaa,
    /// Mail exchangers.
    Mx,
    /// Text records.
    Txt,
    /// The canonical name.
    Cname,
    /// Name servers.
    Ns,
}

impl Kind {
    fn record_type(self) -> RecordType {
        match self {
            Self::A => RecordType::A,
            Self::Aaaa => RecordType::AAAA,
            Self::Mx => RecordType::MX,
            Self::Txt => RecordType::TXT,
            Self::Cname => RecordType::CNAME,
            Self::Ns => RecordType::NS,
        }
    }
}

/// One record.
#[derive(Debug, Serialize)]
pub(crate) struct Record {
    /// Its type (`A`, `MX`...); a CNAME may come with the records asked for.
    #[serde(rename = "type")]
    kind: String,
    /// Its value: an address, a name or the text.
    value: String,
    /// Seconds it may be cached.
    ttl: u32,
    /// An MX record's preference (lower first).
    #[serde(skip_serializing_if = "Option::is_none")]
    preference: Option<u16>,
}

/// What `dns_lookup` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The name looked up.
    name: String,
    /// The type asked for.
    record_type: String,
    /// The records found, in the order of the answer.
    records: Vec<Record>,
}

/// The `dns_lookup` tool.
#[derive(Debug)]
pub(crate) struct DnsLookup {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl DnsLookup {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Look up the DNS records of a domain name: A, AAAA, MX, TXT, CNAME or \
             NS. Returns each record's type, value (address, name or text), TTL and, for MX, \
             its preference. An empty list means the name exists without records of that \
             type; a name that does not exist is an error.";
        let spec = ToolSpec::builder("dns_lookup", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("network:fetch")
            .arg_kind("name", ArgKind::Host)
            .timeout(Duration::from_secs(20))
            .max_result_bytes(super::result_cap(web))
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }

    /// A resolver asking the configured nameserver, or the system's.
    fn resolver(&self) -> Result<TokioResolver, ToolError> {
        let mut builder = match self.web.config().nameserver {
            Some(address) => Resolver::builder_with_config(
                ResolverConfig::from_parts(
                    None,
                    Vec::new(),
                    NameServerConfigGroup::from_ips_clear(&[address.ip()], address.port(), true),
                ),
                TokioConnectionProvider::default(),
            ),
            None => TokioResolver::builder_tokio().map_err(|error| {
                ToolError::failed_with("the system's DNS configuration cannot be read", error)
            })?,
        };
        let options = builder.options_mut();
        options.timeout = QUERY_TIMEOUT;
        options.attempts = 2;
        options.cache_size = 0;
        Ok(builder.build())
    }
}

impl TypedTool for DnsLookup {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let name = args.name.trim().trim_end_matches('.').to_owned();
        let record_type = args.record_type.record_type();
        let resolver = self.resolver()?;
        let records = match resolver.lookup(format!("{name}."), record_type).await {
            Ok(lookup) => lookup
                .record_iter()
                .take(MAX_RECORDS)
                .map(|record| describe(record.record_type(), record.data(), record.ttl()))
                .collect(),
            Err(error) if error.is_nx_domain() => {
                return Err(ToolError::failed(format!(
                    "`{name}` does not exist (NXDOMAIN); check the spelling"
                )));
            }
            Err(error) if error.is_no_records_found() => Vec::new(),
            Err(error) => return Err(lookup_failed(&name, error)),
        };
        Ok(Output {
            name,
            record_type: record_type.to_string(),
            records,
        })
    }
}

/// A record for the model.
fn describe(kind: RecordType, data: &RData, ttl: u32) -> Record {
    let (value, preference) = match data {
        RData::MX(mx) => (mx.exchange().to_string(), Some(mx.preference())),
        RData::TXT(txt) => (
            txt.txt_data()
                .iter()
                .map(|part| String::from_utf8_lossy(part).into_owned())
                .collect::<String>(),
            None,
        ),
        other => (other.to_string(), None),
    };
    Record {
        kind: kind.to_string(),
        value,
        ttl,
        preference,
    }
}

/// A lookup failure other than a missing name.
fn lookup_failed(name: &str, error: ResolveError) -> ToolError {
    ToolError::failed_with(
        format!(
            "the DNS lookup of `{name}` failed (no answer from the DNS server?); try again later"
        ),
        error,
    )
}

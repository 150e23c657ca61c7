//! Name resolution that only yields addresses the [`AddressPolicy`] allows, so the
//! address checked is the address connected to (no window between check and connect).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::ssrf::{AddressPolicy, Blocked};

/// A host name that does not resolve.
#[derive(Debug, thiserror::Error)]
#[error("the host `{host}` could not be resolved; check the spelling of the host name")]
pub(crate) struct Unresolved {
    /// The name looked up.
    pub(crate) host: String,
    /// Why the lookup failed.
    #[source]
    pub(crate) source: std::io::Error,
}

/// Why a host yields no address to connect to.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LookupError {
    /// The name does not resolve.
    #[error(transparent)]
    Unresolved(#[from] Unresolved),
    /// Every address it resolves to is refused.
    #[error("`{host}` resolves to {blocked}")]
    Blocked {
        /// The name looked up.
        host: String,
        /// The first address refused.
        #[source]
        blocked: Blocked,
    },
}

/// The addresses of `host` (a name or an IP literal) with `port`, those the policy
/// refuses left out.
///
/// # Errors
///
/// [`LookupError`] when the name does not resolve or every address is refused.
pub(crate) async fn lookup(
    policy: &AddressPolicy,
    host: &str,
    port: u16,
) -> Result<Vec<SocketAddr>, LookupError> {
    let found = system_lookup(host, port).await?;
    allowed(policy, host, found)
}

/// What the system's resolver answers for `host` (an IP literal answers itself).
async fn system_lookup(host: &str, port: u16) -> Result<Vec<SocketAddr>, Unresolved> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    Ok(tokio::net::lookup_host((bare, port))
        .await
        .map_err(|source| Unresolved {
            host: host.to_owned(),
            source,
        })?
        .collect())
}

/// The addresses of `found` (one answer for `host`) the policy allows: the very ones
/// that will be connected to, so no second answer can slip in between.
fn allowed(
    policy: &AddressPolicy,
    host: &str,
    found: Vec<SocketAddr>,
) -> Result<Vec<SocketAddr>, LookupError> {
    let mut first_refusal = None;
    let allowed: Vec<SocketAddr> = found
        .into_iter()
        .filter(|address| match policy.check(address.ip()) {
            Ok(()) => true,
            Err(blocked) => {
                first_refusal.get_or_insert(blocked);
                false
            }
        })
        .collect();
    match (allowed.is_empty(), first_refusal) {
        (true, Some(blocked)) => Err(LookupError::Blocked {
            host: host.to_owned(),
            blocked,
        }),
        (true, None) => Err(LookupError::Unresolved(Unresolved {
            host: host.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no addresses"),
        })),
        (false, _) => Ok(allowed),
    }
}

/// A function standing in for DNS: the addresses a name resolves to.
#[cfg(test)]
type Answer = Arc<dyn Fn(&str) -> Vec<IpAddr> + Send + Sync>;

/// Where a [`GuardedResolver`] gets the addresses of a name.
#[derive(Clone)]
enum Source {
    /// The system's resolver.
    System,
    /// A function standing in for DNS (tests of rebinding).
    #[cfg(test)]
    Scripted(Answer),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::System => "System",
            #[cfg(test)]
            Self::Scripted(_) => "Scripted",
        })
    }
}

/// A resolver for `reqwest` that filters addresses through the policy.
///
/// Each connection `reqwest` opens to a name asks [`Resolve::resolve`] once and
/// connects to what it yields; those addresses come from one answer, filtered, so a
/// name that answers differently from one lookup to the next (DNS rebinding) is judged
/// by the very address each connection uses.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    /// The addresses allowed.
    policy: Arc<AddressPolicy>,
    /// Where the answers come from.
    source: Source,
}

impl GuardedResolver {
    /// A resolver applying `policy` to the system's answers.
    pub(crate) fn new(policy: Arc<AddressPolicy>) -> Self {
        Self {
            policy,
            source: Source::System,
        }
    }

    /// A resolver applying `policy` to what `answer` says each name resolves to.
    #[cfg(test)]
    pub(crate) fn scripted(
        policy: Arc<AddressPolicy>,
        answer: impl Fn(&str) -> Vec<IpAddr> + Send + Sync + 'static,
    ) -> Self {
        Self {
            policy,
            source: Source::Scripted(Arc::new(answer)),
        }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let (policy, source) = (Arc::clone(&self.policy), self.source.clone());
        Box::pin(async move {
            let host = name.as_str();
            let found = match source {
                Source::System => system_lookup(host, 0).await.map_err(LookupError::from)?,
                #[cfg(test)]
                Source::Scripted(answer) => answer(host)
                    .into_iter()
                    .map(|ip| SocketAddr::new(ip, 0))
                    .collect(),
            };
            let addresses = allowed(&policy, host, found)?;
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

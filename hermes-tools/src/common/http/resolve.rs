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
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let found: Vec<SocketAddr> = if let Ok(ip) = bare.parse::<IpAddr>() {
        vec![SocketAddr::new(ip, port)]
    } else {
        tokio::net::lookup_host((bare, port))
            .await
            .map_err(|source| Unresolved {
                host: host.to_owned(),
                source,
            })?
            .collect()
    };
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

/// A resolver for `reqwest` that filters addresses through the policy.
#[derive(Debug, Clone)]
pub(crate) struct GuardedResolver {
    /// The addresses allowed.
    policy: Arc<AddressPolicy>,
}

impl GuardedResolver {
    /// A resolver applying `policy`.
    pub(crate) fn new(policy: Arc<AddressPolicy>) -> Self {
        Self { policy }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        Box::pin(async move {
            let addresses = lookup(&policy, name.as_str(), 0).await?;
            Ok(Box::new(addresses.into_iter()) as Addrs)
        })
    }
}

//! Who a commit is by: the author from the arguments or the repository's git config,
//! the committer from the config (or the author when the config names nobody).

use git2::{Repository, Signature};
use hermes_core::ToolError;

/// The author and committer of a new commit.
pub(super) struct Identities {
    /// Who wrote the change.
    pub(super) author: Signature<'static>,
    /// Who commits it.
    pub(super) committer: Signature<'static>,
}

/// The identities for a commit in `git`: `name` and `email` override the configured
/// `user.name` and `user.email` for the author.
///
/// # Errors
///
/// Neither the arguments nor the config give a name and an email, or they are not
/// usable in a commit (libgit2 refuses `<` and `>` in them, say).
pub(super) fn identities(
    git: &Repository,
    name: Option<&str>,
    email: Option<&str>,
) -> Result<Identities, ToolError> {
    let config = git.config().ok();
    let configured = |key: &str| {
        config
            .as_ref()
            .and_then(|config| config.get_string(key).ok())
            .filter(|value| !value.trim().is_empty())
    };
    let (config_name, config_email) = (configured("user.name"), configured("user.email"));
    let given = |value: Option<&str>| {
        value
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    let author_name = given(name).or_else(|| config_name.clone());
    let author_email = given(email).or_else(|| config_email.clone());
    let (Some(author_name), Some(author_email)) = (author_name, author_email) else {
        return Err(ToolError::failed(
            "no commit author: the repository's git config has no user.name and user.email; \
             pass author_name and author_email, or set them with `git config user.name` and \
             `git config user.email`",
        ));
    };
    let author = signature(&author_name, &author_email)?;
    let committer = match (config_name, config_email) {
        (Some(name), Some(email)) => signature(&name, &email)?,
        _ => author.clone(),
    };
    Ok(Identities { author, committer })
}

/// A signature at the current time.
fn signature(name: &str, email: &str) -> Result<Signature<'static>, ToolError> {
    Signature::now(name, email).map_err(|error| {
        ToolError::failed_with(
            format!("`{name} <{email}>` cannot sign a commit; use a plain name and email"),
            error,
        )
    })
}

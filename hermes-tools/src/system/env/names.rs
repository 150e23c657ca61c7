//! Which variable names and values a session may set, for `env_set` and for the `env`
//! of a command.

use std::collections::BTreeMap;

use hermes_core::ToolError;

/// The longest name a session may set.
pub(crate) const MAX_NAME_LEN: usize = 128;
/// The longest value a session may set, in bytes.
pub(crate) const MAX_VALUE_LEN: usize = 32 * 1024;

/// Names that change how programs are loaded or how a shell starts: setting them would
/// change what every later command runs, whatever the command line says (and the
/// dangerous-command detector sees only the command line).
const PROTECTED_PREFIXES: &[&str] = &["LD_", "DYLD_"];
const PROTECTED_NAMES: &[&str] = &["BASH_ENV", "ENV", "PROMPT_COMMAND", "IFS", "SHELLOPTS"];

/// Check a name the session wants to set.
///
/// # Errors
///
/// A message for the model when the name is not `^[A-Za-z_][A-Za-z0-9_]*$`, is too long,
/// or is protected.
pub(crate) fn check_name(name: &str) -> Result<(), ToolError> {
    let mut chars = name.chars();
    let well_formed = chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !well_formed || name.len() > MAX_NAME_LEN {
        return Err(ToolError::failed(format!(
            "`{name}` is not a variable name: use letters, digits and `_`, not starting with \
             a digit, at most {MAX_NAME_LEN} characters"
        )));
    }
    let upper = name.to_ascii_uppercase();
    if PROTECTED_NAMES.contains(&upper.as_str())
        || PROTECTED_PREFIXES
            .iter()
            .any(|prefix| upper.starts_with(prefix))
    {
        return Err(ToolError::failed(format!(
            "`{name}` cannot be set: it changes how programs load or how the shell starts; \
             pass what the command needs on its command line instead"
        )));
    }
    Ok(())
}

/// Check a value the session wants to set.
///
/// # Errors
///
/// A message for the model when the value is too long or holds a NUL byte.
pub(crate) fn check_value(name: &str, value: &str) -> Result<(), ToolError> {
    if value.len() > MAX_VALUE_LEN {
        return Err(ToolError::failed(format!(
            "the value of `{name}` is {} bytes; at most {MAX_VALUE_LEN} are allowed: put long \
             data in a file and pass its path",
            value.len()
        )));
    }
    if value.contains('\0') {
        return Err(ToolError::failed(format!(
            "the value of `{name}` holds a NUL byte, which no environment variable can; remove it"
        )));
    }
    Ok(())
}

/// Check every variable of a command's `env`.
///
/// # Errors
///
/// The first bad name or value, as [`check_name`] and [`check_value`].
pub(crate) fn check_all(env: &BTreeMap<String, String>) -> Result<(), ToolError> {
    for (name, value) in env {
        check_name(name)?;
        check_value(name, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_shell_rule() {
        for good in ["A", "_x", "MY_VAR_2", "lower"] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "2X", "A-B", "A B", "A=B", "É", &"x".repeat(129)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn loader_and_shell_start_names_are_protected() {
        for name in [
            "LD_PRELOAD",
            "ld_library_path",
            "DYLD_INSERT_LIBRARIES",
            "BASH_ENV",
            "ENV",
        ] {
            let error = check_name(name).unwrap_err();
            assert!(error.to_string().contains("cannot be set"), "{name}");
        }
    }

    #[test]
    fn values_are_bounded() {
        assert!(check_value("A", "ok").is_ok());
        assert!(check_value("A", &"x".repeat(MAX_VALUE_LEN + 1)).is_err());
        assert!(check_value("A", "a\0b").is_err());
    }
}

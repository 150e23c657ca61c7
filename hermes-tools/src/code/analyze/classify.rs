//! Which syntax nodes are definitions, per language, and what they are called.

use tree_sitter::Node;

use super::language::Language;

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A free function (or one nested in another function).
    Function,
    /// A function of a class, impl, trait or interface.
    Method,
    /// A class.
    Class,
    /// A struct.
    Struct,
    /// An enum.
    Enum,
    /// A Rust union.
    Union,
    /// A Rust trait.
    Trait,
    /// A Rust impl block.
    Impl,
    /// An interface (TypeScript, Go).
    Interface,
    /// A type alias or another named type.
    Type,
    /// A module or namespace.
    Module,
    /// A Rust `macro_rules!` macro.
    Macro,
}

impl Kind {
    /// The name the model sees.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Method => "method",
            Self::Class => "class",
            Self::Struct => "struct",
            Self::Enum => "enum",
            Self::Union => "union",
            Self::Trait => "trait",
            Self::Impl => "impl",
            Self::Interface => "interface",
            Self::Type => "type",
            Self::Module => "module",
            Self::Macro => "macro",
        }
    }

    /// Whether functions directly inside a definition of this kind are methods.
    fn holds_methods(self) -> bool {
        matches!(
            self,
            Self::Class | Self::Trait | Self::Impl | Self::Interface
        )
    }
}

/// A definition found at a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// What it is.
    pub(crate) kind: Kind,
    /// Its name (for a Rust `impl`, the type, with `Trait for` before it).
    pub(crate) name: String,
    /// The definition it belongs to, when not the one it is nested in (a Go method's
    /// receiver type).
    pub(crate) owner: Option<String>,
}

/// The definition at `node`, if it is one. `enclosing` is the kind of the innermost
/// definition around it.
pub(crate) fn classify(
    language: Language,
    node: Node<'_>,
    source: &str,
    enclosing: Option<Kind>,
) -> Option<Found> {
    let function = if enclosing.is_some_and(Kind::holds_methods) {
        Kind::Method
    } else {
        Kind::Function
    };
    let (kind, name) = match language {
        Language::Rust => rust(node, source, function)?,
        Language::Python => python(node, source, function)?,
        Language::Javascript | Language::Typescript | Language::Tsx => {
            script(node, source, function)?
        }
        Language::Go => return go(node, source),
    };
    Some(Found {
        kind,
        name,
        owner: None,
    })
}

fn rust(node: Node<'_>, source: &str, function: Kind) -> Option<(Kind, String)> {
    let kind = match node.kind() {
        "function_item" => function,
        "function_signature_item" => Kind::Method,
        "struct_item" => Kind::Struct,
        "enum_item" => Kind::Enum,
        "union_item" => Kind::Union,
        "trait_item" => Kind::Trait,
        "type_item" => Kind::Type,
        "mod_item" => Kind::Module,
        "macro_definition" => Kind::Macro,
        "impl_item" => {
            let target = field_text(node, "type", source)?;
            let name = match field_text(node, "trait", source) {
                Some(r#trait) => format!("{trait} for {target}"),
                None => target,
            };
            return Some((Kind::Impl, name));
        }
        _ => return None,
    };
    Some((kind, field_text(node, "name", source)?))
}

fn python(node: Node<'_>, source: &str, function: Kind) -> Option<(Kind, String)> {
    let kind = match node.kind() {
        "function_definition" => function,
        "class_definition" => Kind::Class,
        _ => return None,
    };
    Some((kind, field_text(node, "name", source)?))
}

/// JavaScript and TypeScript.
fn script(node: Node<'_>, source: &str, function: Kind) -> Option<(Kind, String)> {
    let kind = match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            Kind::Function
        }
        "class_declaration" | "abstract_class_declaration" | "class" => Kind::Class,
        "method_definition" | "method_signature" | "abstract_method_signature" => Kind::Method,
        "interface_declaration" => Kind::Interface,
        "type_alias_declaration" => Kind::Type,
        "enum_declaration" => Kind::Enum,
        "internal_module" | "module" => Kind::Module,
        // `const f = () => ..`, `let g = function () {..}`
        "variable_declarator" => {
            let value = node.child_by_field_name("value")?;
            if !matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            ) {
                return None;
            }
            function
        }
        _ => return None,
    };
    Some((kind, field_text(node, "name", source)?))
}

fn go(node: Node<'_>, source: &str) -> Option<Found> {
    let (kind, name, owner) = match node.kind() {
        "function_declaration" => (Kind::Function, field_text(node, "name", source)?, None),
        "method_declaration" => {
            let receiver = node
                .child_by_field_name("receiver")
                .and_then(|receiver| receiver_type(receiver, source));
            (Kind::Method, field_text(node, "name", source)?, receiver)
        }
        "method_elem" | "method_spec" => (Kind::Method, field_text(node, "name", source)?, None),
        "type_spec" | "type_alias" => {
            let kind = match node.child_by_field_name("type").map(|kind| kind.kind()) {
                Some("struct_type") => Kind::Struct,
                Some("interface_type") => Kind::Interface,
                _ => Kind::Type,
            };
            (kind, field_text(node, "name", source)?, None)
        }
        _ => return None,
    };
    Some(Found { kind, name, owner })
}

/// The type a Go method's receiver list names: `(s *Stack[T])` gives `Stack`.
fn receiver_type(receiver: Node<'_>, source: &str) -> Option<String> {
    let mut cursor = receiver.walk();
    let parameter = receiver
        .named_children(&mut cursor)
        .find(|child| child.kind() == "parameter_declaration")?;
    let text = field_text(parameter, "type", source)?;
    let name = text.trim_start_matches('*');
    let name = name.split('[').next().unwrap_or(name).trim();
    Some(name.to_owned())
}

/// The source text of `node`'s field `field`.
fn field_text(node: Node<'_>, field: &str, source: &str) -> Option<String> {
    let child = node.child_by_field_name(field)?;
    source
        .get(child.byte_range())
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

//! What a connector or a format declares about itself: its options (name,
//! required or default, whether the name is Flink's or tidemark's own, the
//! kind of value, a line of doc) and what it can do.
//!
//! The declarations are data, so that every layer reads the same ones: the
//! front end validates `CREATE TABLE ... WITH (...)` against them (with a
//! caret on a bad option), `EXPLAIN`, completion and the documentation come
//! from them, and the engine's connectors carry them beside their code.
//! The engine hands its list to the front end as a [`Declarations`].

/// Whose name an option has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Flink's option, with Flink's meaning.
    Flink,
    /// tidemark's own (Flink has no such option).
    Tidemark,
}

/// What values an option takes; checked when the table is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Any text.
    Text,
    /// `true` or `false`, in any case.
    Bool,
    /// One of these words, as written.
    OneOf(&'static [&'static str]),
    /// A positive duration such as `'1 s'` or `'500 ms'`.
    PositiveDuration,
    /// A duration, or 0.
    Duration,
    /// An option of Flink's that tidemark does not act on yet: refused by
    /// name, with its doc saying why and what to write instead.
    NotSupported,
}

/// One option of a connector or format.
#[derive(Clone, Copy, Debug)]
pub struct OptionDecl {
    /// The key, e.g. `path`; a key ending in `.` is a prefix (datagen's
    /// `fields.` + column + `.` + property).
    pub key: &'static str,
    pub required: bool,
    /// The value used when the option is not given, as documented.
    pub default: Option<&'static str>,
    pub origin: Origin,
    pub kind: ValueKind,
    pub doc: &'static str,
    /// A finer check of a value than its kind says (a single character,
    /// a whole number): the message says what is wrong.
    pub check: Option<fn(&str) -> Result<(), String>>,
}

impl OptionDecl {
    /// An optional text option under Flink's name.
    pub const fn flink(key: &'static str, doc: &'static str) -> Self {
        OptionDecl {
            key,
            required: false,
            default: None,
            origin: Origin::Flink,
            kind: ValueKind::Text,
            doc,
            check: None,
        }
    }

    /// A Flink option refused by name: `why` says what to write instead.
    pub const fn not_yet(key: &'static str, why: &'static str) -> Self {
        OptionDecl {
            kind: ValueKind::NotSupported,
            ..Self::flink(key, why)
        }
    }

    /// An optional text option of tidemark's own.
    pub const fn own(key: &'static str, doc: &'static str) -> Self {
        OptionDecl {
            origin: Origin::Tidemark,
            ..Self::flink(key, doc)
        }
    }

    pub const fn required(self) -> Self {
        OptionDecl {
            required: true,
            ..self
        }
    }

    pub const fn default_value(self, value: &'static str) -> Self {
        OptionDecl {
            default: Some(value),
            ..self
        }
    }

    pub const fn kind(self, kind: ValueKind) -> Self {
        OptionDecl { kind, ..self }
    }

    pub const fn checked(self, check: fn(&str) -> Result<(), String>) -> Self {
        OptionDecl {
            check: Some(check),
            ..self
        }
    }

    /// Whether `key` is this option (or under this prefix).
    pub fn matches(&self, key: &str) -> bool {
        match self.key.strip_suffix('.') {
            Some(_) => key.len() > self.key.len() && key.starts_with(self.key),
            None => key == self.key,
        }
    }
}

/// Whether a connector's rows are encoded by a `'format'`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatUse {
    /// The connector makes its own rows (generators, a blackhole).
    None,
    /// `'format'` must be given.
    Required,
    /// `'format'` may be given; without it the connector writes its own way.
    Optional,
}

/// What a connector can do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Tables can be read (`FROM t`).
    pub read: bool,
    /// Tables can be written (`INSERT INTO t`).
    pub write: bool,
    /// A written table takes updates as upserts on its PRIMARY KEY.
    pub upsert: bool,
    /// A written table takes a changelog as it is, updates and all (shown
    /// or discarded), with no key.
    pub changelog: bool,
    /// Late rows and skipped input rows can be written to it
    /// (`table.exec.late-records.sink`, `table.exec.bad-records.sink`).
    pub side_output: bool,
    /// A read can be checkpointed and resumed.
    pub checkpoint_read: bool,
    /// A read may have no end (standard input, a followed file).
    pub unbounded: bool,
}

impl Capabilities {
    /// Nothing: the start of a declaration that names what it can do,
    /// `Capabilities { read: true, ..Capabilities::NONE }`.
    pub const NONE: Capabilities = Capabilities {
        read: false,
        write: false,
        upsert: false,
        changelog: false,
        side_output: false,
        checkpoint_read: false,
        unbounded: false,
    };
}

/// A metadata column a connector gives beside each row.
#[derive(Clone, Debug)]
pub struct MetadataDecl {
    /// The key `METADATA FROM` names, e.g. `timestamp`.
    pub key: &'static str,
    /// The type the connector gives; a column may be declared as any type
    /// this casts to.
    pub ty: crate::SqlType,
    /// Whether a written table takes it; a read-only one must be `VIRTUAL`
    /// in a table that is written.
    pub writable: bool,
    pub doc: &'static str,
    /// Set for a key Flink's connector has and tidemark does not yet: why.
    pub not_supported: Option<&'static str>,
}

impl MetadataDecl {
    /// A key that reads give, of type `ty`.
    pub const fn read_only(key: &'static str, ty: crate::SqlType, doc: &'static str) -> Self {
        MetadataDecl {
            key,
            ty,
            writable: false,
            doc,
            not_supported: None,
        }
    }

    /// A key that reads give and writes take.
    pub const fn writable(self) -> Self {
        MetadataDecl {
            writable: true,
            ..self
        }
    }

    /// A key of Flink's that tidemark refuses by name, saying why.
    pub const fn not_yet(key: &'static str, why: &'static str) -> Self {
        MetadataDecl {
            key,
            ty: crate::SqlType::Null,
            writable: false,
            doc: why,
            not_supported: Some(why),
        }
    }
}

/// A connector's declaration.
#[derive(Debug)]
pub struct ConnectorDecl {
    /// The value of `'connector'`.
    pub name: &'static str,
    pub origin: Origin,
    pub doc: &'static str,
    pub format: FormatUse,
    /// The formats it carries, when it carries one.
    pub formats: &'static [&'static str],
    pub options: &'static [OptionDecl],
    pub capabilities: Capabilities,
    /// The metadata columns its tables may declare (`METADATA FROM`).
    pub metadata: &'static [MetadataDecl],
    /// A WITH clause to show when a required option is missing.
    pub example: &'static str,
    /// The check of a table's options past what each option's own check
    /// sees (options that need each other).
    pub check: Option<ConnectorCheck>,
}

/// A connector's check of a table's options: on failure, the option to
/// point at and what is wrong.
pub type ConnectorCheck =
    fn(&std::collections::BTreeMap<String, String>) -> Result<(), (&'static str, String)>;

impl ConnectorDecl {
    pub fn option(&self, key: &str) -> Option<&OptionDecl> {
        self.options.iter().find(|o| o.matches(key))
    }
}

/// A format's declaration: its options all start with its name and a dot.
#[derive(Debug)]
pub struct FormatDecl {
    /// The value of `'format'`.
    pub name: &'static str,
    pub doc: &'static str,
    pub options: &'static [OptionDecl],
    /// The whole check of a table's options for this format, past what
    /// each option's own check sees (options that exclude each other).
    pub check: fn(&std::collections::BTreeMap<String, String>) -> Result<(), String>,
}

impl FormatDecl {
    pub fn option(&self, key: &str) -> Option<&OptionDecl> {
        self.options.iter().find(|o| o.matches(key))
    }
}

/// Every connector and format there is, as the engine declares them.
#[derive(Debug, Default)]
pub struct Declarations {
    pub connectors: Vec<&'static ConnectorDecl>,
    pub formats: Vec<&'static FormatDecl>,
}

impl Declarations {
    pub fn connector(&self, name: &str) -> Option<&'static ConnectorDecl> {
        self.connectors.iter().copied().find(|c| c.name == name)
    }

    pub fn format(&self, name: &str) -> Option<&'static FormatDecl> {
        self.formats.iter().copied().find(|f| f.name == name)
    }
}

/// The `'connector'` option itself, which every connector has.
pub const CONNECTOR: OptionDecl = OptionDecl {
    key: "connector",
    required: true,
    default: None,
    origin: Origin::Flink,
    kind: ValueKind::Text,
    doc: "which connector reads or writes the table",
    check: None,
};

/// The `'format'` option of a connector that carries a format.
pub const FORMAT: OptionDecl = OptionDecl {
    key: "format",
    required: false,
    default: None,
    origin: Origin::Flink,
    kind: ValueKind::Text,
    doc: "how rows are encoded as bytes",
    check: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prefix_option_matches_keys_under_it_only() {
        let fields = OptionDecl {
            key: "fields.",
            required: false,
            default: None,
            origin: Origin::Flink,
            kind: ValueKind::Text,
            doc: "",
            check: None,
        };
        assert!(fields.matches("fields.id.kind"));
        assert!(!fields.matches("fields."));
        assert!(!fields.matches("field.id.kind"));
        let path = OptionDecl {
            key: "path",
            ..fields
        };
        assert!(path.matches("path"));
        assert!(!path.matches("paths"));
    }
}

/// What a secret option's value is shown as.
pub const HIDDEN: &str = "******";

/// Whether a table option's value is a secret (a password, a client
/// secret, a login configuration with credentials in it): it is never
/// shown, not by SHOW CREATE TABLE, DESCRIBE or EXPLAIN nor in an error.
pub fn is_secret_option(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.contains("password")
        || key.contains("secret")
        || key.ends_with("jaas.config")
        || key.ends_with("sasl.oauthbearer.config")
        || key.ends_with("ssl.key.pem")
}

/// An option's value as it may be shown: a secret hidden, and the
/// password of a URL's `user:password@` too.
pub fn shown_option_value<'a>(key: &str, value: &'a str) -> std::borrow::Cow<'a, str> {
    if is_secret_option(key) {
        return HIDDEN.into();
    }
    if let Some((scheme, rest)) = value.split_once("://") {
        let authority = rest.split('/').next().unwrap_or(rest);
        if let Some((user_info, _)) = authority.rsplit_once('@') {
            if let Some((user, _)) = user_info.split_once(':') {
                let after = &rest[user_info.len()..];
                return format!("{scheme}://{user}:{HIDDEN}{after}").into();
            }
        }
    }
    value.into()
}

/// The options of one part of a record (`"key."` or `"value."`) as its
/// format reads them: `<part>format` as `format` and each
/// `<part><format>.<option>` as `<format>.<option>`, so that a key's or a
/// value's format is opened and checked as a table's own would be.
pub fn part_options(
    options: &std::collections::BTreeMap<String, String>,
    part: &str,
) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let Some(format) = options.get(&format!("{part}format")) else {
        return out;
    };
    let own = format!("{part}{format}.");
    for (key, value) in options {
        if key.starts_with(&own) {
            out.insert(key[part.len()..].to_string(), value.clone());
        }
    }
    out.insert("format".to_string(), format.clone());
    out
}

/// `message` with every secret value among `options` hidden: for errors
/// a client library words with the values it was given.
pub fn hide_secrets<'a>(
    message: &str,
    options: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> String {
    let mut out = message.to_string();
    for (key, value) in options {
        if is_secret_option(key) && !value.is_empty() {
            out = out.replace(value.as_str(), HIDDEN);
        }
    }
    out
}

#[cfg(test)]
mod secret_tests {
    use super::*;

    #[test]
    fn secrets_are_never_shown() {
        assert_eq!(shown_option_value("properties.sasl.password", "pw"), HIDDEN);
        assert_eq!(
            shown_option_value("properties.sasl.jaas.config", "x required password=\"pw\";"),
            HIDDEN
        );
        assert_eq!(shown_option_value("password", "pw"), HIDDEN);
        assert_eq!(
            shown_option_value("url", "postgresql://ann:pw@db:5432/x"),
            "postgresql://ann:******@db:5432/x"
        );
        assert_eq!(
            shown_option_value("url", "postgresql://db:5432/x"),
            "postgresql://db:5432/x"
        );
        assert_eq!(shown_option_value("topic", "bids"), "bids");
        let options = [(
            "properties.sasl.password".to_string(),
            "hunter2".to_string(),
        )];
        assert_eq!(
            hide_secrets("login hunter2 refused", options.iter().map(|(k, v)| (k, v))),
            "login ****** refused"
        );
    }
}

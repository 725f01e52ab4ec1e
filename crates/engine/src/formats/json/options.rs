//! The `json.*` options of a table, read into [`JsonOptions`] as Flink
//! reads them.

use crate::formats::options::{option_error, parse_bool_option};
use std::collections::BTreeMap;
use tidemark_common::Result;

/// The `json.*` options of a table, as Flink names them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonOptions {
    pub ignore_parse_errors: bool,
    pub fail_on_missing_field: bool,
    /// Timestamps written `yyyy-MM-ddTHH:mm:ss` (ISO-8601) rather than
    /// with a space (SQL).
    pub iso_timestamps: bool,
    /// Writing: a NULL field is left out of its object.
    pub omit_null_fields: bool,
    /// Writing: a DECIMAL as all its digits (`12.50`) rather than as
    /// Java's shortest form (`12.5`, `1E+2`).
    pub plain_decimals: bool,
}

impl JsonOptions {
    /// From the WITH options of a table (other keys are left alone; which
    /// keys a table may have was checked against [`DECLARATION`](super::DECLARATION) when it
    /// was declared).
    pub fn from_options(options: &BTreeMap<String, String>) -> Result<Self> {
        let fail_on_missing_field =
            parse_bool_option(options, "json.fail-on-missing-field")?.unwrap_or(false);
        let ignore_parse_errors =
            parse_bool_option(options, "json.ignore-parse-errors")?.unwrap_or(false);
        if fail_on_missing_field && ignore_parse_errors {
            // Flink refuses the pair too: the two contradict each other.
            return Err(option_error(
                "'json.fail-on-missing-field' and 'json.ignore-parse-errors' cannot both be true"
                    .into(),
            ));
        }
        let iso_timestamps = match options.get("json.timestamp-format.standard").map(String::as_str) {
            None | Some("SQL") => false,
            Some("ISO-8601") => true,
            Some(other) => {
                return Err(option_error(format!(
                    "option 'json.timestamp-format.standard' must be 'SQL' or 'ISO-8601', not '{other}'"
                )))
            }
        };
        parse_bool_option(options, "json.decode.json-parser.enabled")?;
        Ok(JsonOptions {
            ignore_parse_errors,
            fail_on_missing_field,
            iso_timestamps,
            omit_null_fields: parse_bool_option(options, "json.encode.ignore-null-fields")?
                .unwrap_or(false),
            plain_decimals: parse_bool_option(options, "json.encode.decimal-as-plain-number")?
                .unwrap_or(false),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_checked() {
        let bad = |k: &str, v: &str| {
            let options = BTreeMap::from([(k.to_string(), v.to_string())]);
            JsonOptions::from_options(&options).is_err()
        };
        assert!(bad("json.ignore-parse-errors", "maybe"));
        assert!(bad("json.timestamp-format.standard", "RFC"));
        let both = BTreeMap::from([
            ("json.ignore-parse-errors".to_string(), "true".to_string()),
            ("json.fail-on-missing-field".to_string(), "true".to_string()),
        ]);
        assert!(JsonOptions::from_options(&both).is_err());
    }
}

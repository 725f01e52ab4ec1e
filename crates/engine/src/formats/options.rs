//! What reading any table's WITH options shares: the error a bad option
//! value is, and an option that must be `'true'` or `'false'`. The formats
//! read their options with these, and so do the connectors that read their
//! own (datagen, nexmark).

use std::collections::BTreeMap;
use tidemark_common::{Error, Result, Span};

pub(crate) fn option_error(message: String) -> Error {
    Error::plan(message, Span::default())
}

pub(crate) fn parse_bool_option(
    options: &BTreeMap<String, String>,
    key: &str,
) -> Result<Option<bool>> {
    match options.get(key) {
        None => Ok(None),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(Some(true)),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(Some(false)),
        Some(v) => Err(option_error(format!(
            "option '{key}' must be 'true' or 'false', not '{v}'"
        ))),
    }
}

//! A kafka table's client properties (`properties.*`), as the client
//! takes them: Flink's Java-client settings translated where the client
//! has an equivalent, refused with a hint where it has none, and never
//! shown (secrets are hidden from every message).
//!
//! - `sasl.jaas.config` with Java's PLAIN or SCRAM login module becomes
//!   `sasl.username` and `sasl.password`; another login module (Kerberos,
//!   OAuth) is refused.
//! - Java keystores: `ssl.truststore.*` is refused (the client takes the
//!   CA as a PEM file, `ssl.ca.location`); `ssl.keystore.*` is taken only
//!   as PKCS#12 (`'ssl.keystore.type' = 'PKCS12'`), not JKS.
//!
//! Everything else is passed to the client as it is; the client refuses
//! what it does not know by name.

use std::collections::BTreeMap;
use tidemark_common::catalog::TableDef;
use tidemark_common::{Error, Result};

/// The client properties `table` gives, translated.
pub(super) fn client_properties(table: &TableDef) -> Result<BTreeMap<String, String>> {
    let error = |what: String| Error::Input(format!("table {}: {what}", table.name));
    let mut client = BTreeMap::new();
    let mut keystore_type = None;
    for (key, value) in &table.options {
        let Some(property) = key.strip_prefix("properties.") else {
            continue;
        };
        match property {
            "sasl.jaas.config" => {
                let (username, password) = jaas_login(value).map_err(|why| {
                    error(format!("'properties.sasl.jaas.config': {why}"))
                })?;
                client.insert("sasl.username".to_string(), username);
                client.insert("sasl.password".to_string(), password);
            }
            "ssl.keystore.type" => keystore_type = Some(value.to_ascii_uppercase()),
            p if p.starts_with("ssl.truststore.") => {
                return Err(error(format!(
                    "'{key}' is a Java truststore setting, which tidemark's client does not read: give the brokers' CA certificate as a PEM file in 'properties.ssl.ca.location'"
                )))
            }
            _ => {
                client.insert(property.to_string(), value.clone());
            }
        }
    }
    let keystore = client.keys().any(|k| k.starts_with("ssl.keystore."));
    if keystore && keystore_type.as_deref().unwrap_or("JKS") != "PKCS12" {
        return Err(error(
            "a JKS keystore ('properties.ssl.keystore.*') cannot be read by tidemark's client: give the client certificate and key as PEM files in 'properties.ssl.certificate.location' and 'properties.ssl.key.location', or a PKCS#12 keystore with 'properties.ssl.keystore.type' = 'PKCS12'".into(),
        ));
    }
    Ok(client)
}

/// The user name and password of a Java login configuration with the
/// PLAIN or SCRAM login module:
/// `org.apache.kafka.common.security.plain.PlainLoginModule required
/// username="u" password="p";`. The message never holds the password.
fn jaas_login(config: &str) -> std::result::Result<(String, String), String> {
    let config = config.trim().trim_end_matches(';');
    let (module, rest) = config
        .split_once(char::is_whitespace)
        .ok_or("it names no login module and flag")?;
    let class = module.rsplit('.').next().unwrap_or(module);
    if class != "PlainLoginModule" && class != "ScramLoginModule" {
        return Err(format!(
            "the {class} login is not supported: tidemark's client logs in with PLAIN or SCRAM ('properties.sasl.mechanism'), from the PlainLoginModule or ScramLoginModule configuration or 'properties.sasl.username' and 'properties.sasl.password'"
        ));
    }
    let rest = rest.trim_start();
    let rest = rest
        .strip_prefix("required")
        .ok_or("the login module's flag must be 'required'")?;
    let mut values = BTreeMap::new();
    let mut text = rest.trim_start();
    while !text.is_empty() {
        let (name, after) = text
            .split_once('=')
            .ok_or("an option is not name=\"value\"")?;
        let after = after.trim_start();
        let (value, next) = match after.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').ok_or("a quoted value does not end")?;
                (&quoted[..end], &quoted[end + 1..])
            }
            None => after.split_once(char::is_whitespace).unwrap_or((after, "")),
        };
        values.insert(name.trim().to_string(), value.to_string());
        text = next.trim_start();
    }
    match (values.remove("username"), values.remove("password")) {
        (Some(user), Some(password)) => Ok((user, password)),
        _ => Err("the login configuration needs username=\"...\" and password=\"...\"".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tidemark_common::Schema;

    fn table(options: &[(&str, &str)]) -> TableDef {
        TableDef::physical_only(
            "t",
            Schema::new(Vec::new()),
            options
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    #[test]
    fn the_client_speaks_tls() {
        // Built with OpenSSL (compiled in): SSL and SASL_SSL are accepted,
        // where a client without it refuses them as it is made.
        for protocol in ["SSL", "SASL_SSL"] {
            let made: std::result::Result<rdkafka::consumer::BaseConsumer, _> =
                rdkafka::config::ClientConfig::new()
                    .set("bootstrap.servers", "127.0.0.1:1")
                    .set("security.protocol", protocol)
                    .set("sasl.mechanism", "SCRAM-SHA-512")
                    .set("sasl.username", "ann")
                    .set("sasl.password", "pw")
                    .create();
            assert!(made.is_ok(), "{protocol}: {:?}", made.err());
        }
    }

    #[test]
    fn java_logins_become_the_clients_user_and_password() -> Result<()> {
        let client = client_properties(&table(&[
            ("properties.security.protocol", "SASL_SSL"),
            ("properties.sasl.mechanism", "SCRAM-SHA-256"),
            (
                "properties.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ann\" password=\"s3 cr;et\";",
            ),
        ]))?;
        assert_eq!(client.get("sasl.username").map(String::as_str), Some("ann"));
        assert_eq!(
            client.get("sasl.password").map(String::as_str),
            Some("s3 cr;et")
        );
        assert_eq!(
            client.get("security.protocol").map(String::as_str),
            Some("SASL_SSL")
        );
        assert!(!client.contains_key("sasl.jaas.config"));
        Ok(())
    }

    #[test]
    fn what_the_client_cannot_read_is_refused_without_its_secrets() {
        let refused = |options: &[(&str, &str)], wanted: &str| {
            let message = client_properties(&table(options))
                .expect_err("refused")
                .to_string();
            assert!(message.contains(wanted), "{message}");
            assert!(!message.contains("hunter2"), "{message}");
        };
        refused(
            &[(
                "properties.sasl.jaas.config",
                "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true password=\"hunter2\";",
            )],
            "the Krb5LoginModule login is not supported",
        );
        refused(
            &[(
                "properties.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"ann\";",
            )],
            "needs username=\"...\" and password=\"...\"",
        );
        refused(
            &[
                ("properties.ssl.truststore.location", "/etc/kafka/trust.jks"),
                ("properties.ssl.truststore.password", "hunter2"),
            ],
            "'properties.ssl.ca.location'",
        );
        refused(
            &[
                ("properties.ssl.keystore.location", "/etc/kafka/client.jks"),
                ("properties.ssl.keystore.password", "hunter2"),
            ],
            "a JKS keystore",
        );
        let pkcs12 = client_properties(&table(&[
            ("properties.ssl.keystore.location", "/etc/kafka/client.p12"),
            ("properties.ssl.keystore.type", "PKCS12"),
        ]))
        .expect("a PKCS#12 keystore is read");
        assert!(!pkcs12.contains_key("ssl.keystore.type"));
    }
}

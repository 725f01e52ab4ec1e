//! The `'connector' = 'datagen'` source: rows generated from per-field
//! rules, with Flink's option names.
//!
//! - `'number-of-rows'`: how many rows; without it (and without a
//!   sequence field) the source is unbounded and runs until cancelled.
//! - `'rows-per-second'` (default 10000): the source never goes faster.
//! - `'fields.<f>.kind'` = `'random'` (default) or `'sequence'`.
//!   A sequence counts from `'fields.<f>.start'` to `'fields.<f>.end'`;
//!   the source ends when the first sequence does (as in Flink).
//!   A random field takes `'fields.<f>.min'` / `'fields.<f>.max'`
//!   (numbers), `'fields.<f>.length'` (strings, default 100 hex digits),
//!   `'fields.<f>.max-past'` (timestamps: up to that long before the
//!   engine clock's time; a DATE or TIME is the day or time of day of
//!   such a timestamp), and `'fields.<f>.null-rate'`.
//! - `'seed'` (tidemark's own; default 0): random fields are the same on
//!   every run with the same seed. Each field draws from its own
//!   generator, so adding a field does not change the others.
//!
//! Rowtimes come from computed columns, e.g. `ts AS
//! TO_TIMESTAMP_LTZ(id * 1000, 3)` over a sequence `id`.

use crate::formats::options::option_error;
use crate::runtime::read::{ReadBatch, ReadStats};
use crate::time::clock::Clock;
use arrow::array::{
    ArrayRef, BooleanBuilder, Date32Builder, Decimal128Builder, Float32Builder, Float64Builder,
    Int16Builder, Int32Builder, Int64Builder, Int8Builder, StringBuilder, Time32MillisecondBuilder,
    TimestampMillisecondBuilder,
};

const MS_PER_DAY: i64 = 86_400_000;
use arrow::datatypes::{Field, Schema, SchemaRef};
use arrow::record_batch::RecordBatch;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tidemark_common::connector::{Capabilities, ConnectorDecl, FormatUse, OptionDecl, Origin};
use tidemark_common::{Error, Result, SqlType};

const FIELD_OPTIONS: &[&str] = &[
    "kind",
    "start",
    "end",
    "min",
    "max",
    "length",
    "max-past",
    "null-rate",
];

/// How one column's values are made.
#[derive(Clone, Debug, PartialEq)]
enum Rule {
    /// `start`, `start + 1`, ... `end` (as text for STRING columns).
    Sequence {
        next: i128,
        end: i128,
    },
    /// Uniform in `[min, max]`.
    Integer {
        min: i128,
        max: i128,
    },
    Double {
        min: f64,
        max: f64,
    },
    Boolean,
    /// `length` random hex digits.
    Text {
        length: usize,
    },
    /// Up to `max_past` ms before the clock's time.
    Timestamp {
        max_past: i64,
    },
}

struct FieldGen {
    rule: Rule,
    ty: SqlType,
    null_rate: f64,
    /// Row r's draws come from a generator seeded by (seed, r), so the
    /// values do not depend on how rows are batched.
    seed: u64,
}

pub struct DatagenSource {
    fields: Vec<FieldGen>,
    schema: SchemaRef,
    batch_size: usize,
    remaining: Option<u64>,
    rows_per_second: f64,
    started: Option<Instant>,
    clock: Clock,
    stats: ReadStats,
}

impl DatagenSource {
    /// `columns`: the physical columns with their SQL types; `options`: the
    /// table's WITH options.
    pub fn open(
        columns: Vec<(String, SqlType)>,
        options: &BTreeMap<String, String>,
        batch_size: usize,
        clock: Clock,
    ) -> Result<Self> {
        for key in options.keys() {
            let known = match key.strip_prefix("fields.") {
                Some(rest) => rest.split_once('.').is_some_and(|(field, option)| {
                    columns.iter().any(|(c, _)| c == field) && FIELD_OPTIONS.contains(&option)
                }),
                None => key == "connector" || DECLARATION.option(key).is_some(),
            };
            if !known {
                return Err(option_error(format!(
                    "unknown option '{key}' of the datagen connector"
                ))
                .with_hint(format!(
                    "datagen knows {}, and fields.<column>.{{{}}} for declared columns",
                    table_options().join(", "),
                    FIELD_OPTIONS.join(", ")
                )));
            }
        }
        let number = |key: &str| -> Result<Option<f64>> {
            options
                .get(key)
                .map(|v| {
                    v.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|n| n.is_finite())
                        .ok_or_else(|| {
                            option_error(format!("option '{key}' must be a number, not '{v}'"))
                        })
                })
                .transpose()
        };
        let remaining = match number("number-of-rows")? {
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
            Some(_) => {
                return Err(option_error(
                    "option 'number-of-rows' must be a whole number of 0 or more".into(),
                ))
            }
            None => None,
        };
        let rows_per_second = match number("rows-per-second")? {
            Some(n) if n > 0.0 => n,
            Some(_) => {
                return Err(option_error(
                    "option 'rows-per-second' must be more than 0".into(),
                ))
            }
            None => 10_000.0,
        };
        let seed = match number("seed")? {
            Some(n) if n.fract() == 0.0 => n as i64 as u64,
            Some(_) => return Err(option_error("option 'seed' must be a whole number".into())),
            None => 0,
        };
        let mut fields = Vec::with_capacity(columns.len());
        for (i, (name, ty)) in columns.iter().enumerate() {
            let get = |option: &str| options.get(&format!("fields.{name}.{option}"));
            let num = |option: &str| number(&format!("fields.{name}.{option}"));
            let kind = get("kind").map_or("random", String::as_str);
            let rule = match kind {
                "sequence" => {
                    let (Some(start), Some(end)) = (num("start")?, num("end")?) else {
                        return Err(option_error(format!(
                            "sequence field '{name}' needs 'fields.{name}.start' and 'fields.{name}.end'"
                        )));
                    };
                    if !matches!(
                        ty,
                        SqlType::TinyInt
                            | SqlType::SmallInt
                            | SqlType::Int
                            | SqlType::BigInt
                            | SqlType::String
                            | SqlType::Decimal(_, 0)
                    ) {
                        return Err(option_error(format!(
                            "a sequence makes TINYINT, SMALLINT, INT, BIGINT, DECIMAL(p, 0) or STRING values, not {ty} (column '{name}')"
                        )));
                    }
                    if start.fract() != 0.0 || end.fract() != 0.0 || start > end {
                        return Err(option_error(format!(
                            "sequence field '{name}' needs whole numbers with start <= end"
                        )));
                    }
                    if let Some((lo, hi)) = integer_range(ty) {
                        if start < lo || end > hi {
                            return Err(option_error(format!(
                                "sequence field '{name}' goes past what a {ty} holds ({lo} to {hi})"
                            )));
                        }
                    }
                    Rule::Sequence {
                        next: start as i128,
                        end: end as i128,
                    }
                }
                "random" => random_rule(name, ty, &num)?,
                other => {
                    return Err(option_error(format!(
                        "option 'fields.{name}.kind' must be 'random' or 'sequence', not '{other}'"
                    )))
                }
            };
            let null_rate = num("null-rate")?.unwrap_or(0.0);
            if !(0.0..=1.0).contains(&null_rate) {
                return Err(option_error(format!(
                    "option 'fields.{name}.null-rate' must be between 0 and 1"
                )));
            }
            fields.push(FieldGen {
                rule,
                ty: ty.clone(),
                null_rate,
                seed: seed ^ (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            });
        }
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(name, ty)| Field::new(name, ty.to_arrow(), true))
                .collect::<Vec<_>>(),
        ));
        Ok(DatagenSource {
            fields,
            schema,
            batch_size: batch_size.max(1),
            remaining,
            rows_per_second,
            started: None,
            clock,
            stats: ReadStats::default(),
        })
    }

    pub fn stats(&self) -> ReadStats {
        self.stats.clone()
    }

    /// The next batch, or None when the rows are all made (or a sequence
    /// has ended).
    pub fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        let sequence_left = self
            .fields
            .iter()
            .filter_map(|f| match f.rule {
                Rule::Sequence { next, end } => Some((end - next + 1).max(0) as u64),
                _ => None,
            })
            .min();
        // A batch holds at most a tenth of a second's rows, so a slow
        // source sends rows as they are made and can be stopped quickly.
        let tenth = (self.rows_per_second / 10.0).ceil().max(1.0) as u64;
        let n = [
            Some(self.batch_size as u64),
            Some(tenth),
            self.remaining,
            sequence_left,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0) as usize;
        if n == 0 {
            return Ok(None);
        }
        self.throttle(n);
        let times = self.clock.next_times(n);
        let columns = self
            .fields
            .iter_mut()
            .map(|f| f.generate(self.stats.rows_read, n, &times))
            .collect::<Result<Vec<ArrayRef>>>()?;
        let batch = RecordBatch::try_new(self.schema.clone(), columns)?;
        let first = self.stats.rows_read + 1;
        self.stats.rows_read += n as u64;
        if let Some(r) = &mut self.remaining {
            *r -= n as u64;
        }
        Ok(Some(ReadBatch {
            batch,
            lines: (first..first + n as u64).collect(),
            raw: Vec::new(),
            skipped: Vec::new(),
        }))
    }

    /// Sleeps until `n` more rows stay within `rows-per-second`.
    fn throttle(&mut self, n: usize) {
        let started = *self.started.get_or_insert_with(Instant::now);
        let due = (self.stats.rows_read + n as u64) as f64 / self.rows_per_second;
        let ahead = due - started.elapsed().as_secs_f64();
        if ahead > 0.0 {
            std::thread::sleep(Duration::from_secs_f64(ahead.min(3600.0)));
        }
    }
}

/// The random rule of a column from its options, with the type's range
/// as default bounds.
fn random_rule(
    name: &str,
    ty: &SqlType,
    num: &dyn Fn(&str) -> Result<Option<f64>>,
) -> Result<Rule> {
    let bounds = |lo: f64, hi: f64| -> Result<(f64, f64)> {
        let (min, max) = (num("min")?.unwrap_or(lo), num("max")?.unwrap_or(hi));
        if min > max {
            return Err(option_error(format!("field '{name}' has min > max")));
        }
        if let Some((type_lo, type_hi)) = integer_range(ty) {
            if min < type_lo || max > type_hi {
                return Err(option_error(format!(
                    "field '{name}' has a min or max past what a {ty} holds ({type_lo} to {type_hi})"
                )));
            }
        }
        Ok((min, max))
    };
    Ok(match ty {
        SqlType::TinyInt => {
            let (min, max) = bounds(f64::from(i8::MIN), f64::from(i8::MAX))?;
            Rule::Integer {
                min: min.ceil() as i128,
                max: max.floor() as i128,
            }
        }
        SqlType::SmallInt => {
            let (min, max) = bounds(f64::from(i16::MIN), f64::from(i16::MAX))?;
            Rule::Integer {
                min: min.ceil() as i128,
                max: max.floor() as i128,
            }
        }
        SqlType::Int => {
            let (min, max) = bounds(f64::from(i32::MIN), f64::from(i32::MAX))?;
            Rule::Integer {
                min: min.ceil() as i128,
                max: max.floor() as i128,
            }
        }
        SqlType::BigInt => {
            let (min, max) = bounds(i64::MIN as f64, i64::MAX as f64)?;
            Rule::Integer {
                min: min.ceil() as i128,
                max: max.floor() as i128,
            }
        }
        SqlType::Decimal(p, s) => {
            let limit = 10f64.powi(i32::from(*p) - i32::from(*s)) - 10f64.powi(-i32::from(*s));
            let (min, max) = bounds(-limit, limit)?;
            let scale = 10f64.powi(i32::from(*s));
            Rule::Integer {
                min: (min * scale).ceil() as i128,
                max: (max * scale).floor() as i128,
            }
        }
        SqlType::Double | SqlType::Float => {
            let (min, max) = bounds(0.0, 1.0)?;
            Rule::Double { min, max }
        }
        SqlType::Boolean => Rule::Boolean,
        SqlType::String => {
            let length = num("length")?.unwrap_or(100.0);
            if !(0.0..=1_000_000.0).contains(&length) || length.fract() != 0.0 {
                return Err(option_error(format!(
                    "option 'fields.{name}.length' must be a whole number up to 1000000"
                )));
            }
            Rule::Text {
                length: length as usize,
            }
        }
        // A DATE or TIME is the day or time of day of such a timestamp.
        SqlType::Timestamp(_) | SqlType::TimestampLtz(_) | SqlType::Date | SqlType::Time(_) => {
            let max_past = num("max-past")?.unwrap_or(0.0);
            if max_past < 0.0 {
                return Err(option_error(format!(
                    "option 'fields.{name}.max-past' must not be negative"
                )));
            }
            Rule::Timestamp {
                max_past: max_past as i64,
            }
        }
        SqlType::Null => {
            return Err(option_error(format!(
                "column '{name}' has a type datagen cannot make"
            )))
        }
    })
}

/// The values an integer type holds, for checking a field's options.
fn integer_range(ty: &SqlType) -> Option<(f64, f64)> {
    Some(match ty {
        SqlType::TinyInt => (f64::from(i8::MIN), f64::from(i8::MAX)),
        SqlType::SmallInt => (f64::from(i16::MIN), f64::from(i16::MAX)),
        SqlType::Int => (f64::from(i32::MIN), f64::from(i32::MAX)),
        _ => return None,
    })
}

impl FieldGen {
    /// Rows `first .. first + n`, with the clock's time of each.
    fn generate(&mut self, first: u64, n: usize, times: &[i64]) -> Result<ArrayRef> {
        // Per row: whether it is NULL, then its value, from its own draws.
        let mut rngs: Vec<SplitMix64> = (0..n as u64)
            .map(|i| SplitMix64(self.seed ^ (first + i).wrapping_mul(0xD1B5_4A32_D192_ED03)))
            .collect();
        let null_rate = self.null_rate;
        let nulls: Vec<bool> = rngs
            .iter_mut()
            .map(|rng| null_rate > 0.0 && rng.unit() < null_rate)
            .collect();
        let values: Vec<i128> = match &mut self.rule {
            Rule::Sequence { next, .. } => {
                let out = (0..n as i128).map(|i| *next + i).collect();
                *next += n as i128;
                out
            }
            Rule::Integer { min, max } => {
                let span = (*max - *min) as u128 + 1;
                let min = *min;
                rngs.iter_mut()
                    .map(|rng| min + rng.below_u128(span) as i128)
                    .collect()
            }
            Rule::Timestamp { max_past } => {
                let past = *max_past as u128 + 1;
                rngs.iter_mut()
                    .zip(times)
                    .map(|(rng, t)| i128::from(*t - rng.below_u128(past) as i64))
                    .collect()
            }
            _ => Vec::new(),
        };
        let array: ArrayRef = match (&self.ty, &self.rule) {
            (SqlType::TinyInt, _) => {
                let mut b = Int8Builder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v as i8));
                }
                Arc::new(b.finish())
            }
            (SqlType::SmallInt, _) => {
                let mut b = Int16Builder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v as i16));
                }
                Arc::new(b.finish())
            }
            (SqlType::Float, Rule::Double { min, max }) => {
                let (min, max) = (*min, *max);
                let mut b = Float32Builder::with_capacity(n);
                for (rng, null) in rngs.iter_mut().zip(&nulls) {
                    let v = min + (max - min) * rng.unit();
                    b.append_option((!null).then_some(v as f32));
                }
                Arc::new(b.finish())
            }
            (SqlType::Date, _) => {
                let mut b = Date32Builder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    let day = i32::try_from((*v as i64).div_euclid(MS_PER_DAY)).ok();
                    b.append_option(day.filter(|_| !null));
                }
                Arc::new(b.finish())
            }
            (SqlType::Time(p), _) => {
                let mut b = Time32MillisecondBuilder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    let ms = (*v as i64).rem_euclid(MS_PER_DAY) as i32;
                    b.append_option((!null).then(|| crate::formats::text::truncate_time(ms, *p)));
                }
                Arc::new(b.finish())
            }
            (SqlType::Int, _) => {
                let mut b = Int32Builder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v as i32));
                }
                Arc::new(b.finish())
            }
            (SqlType::BigInt, _) => {
                let mut b = Int64Builder::with_capacity(n);
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v as i64));
                }
                Arc::new(b.finish())
            }
            (SqlType::Decimal(p, s), _) => {
                let mut b = Decimal128Builder::with_capacity(n).with_precision_and_scale(*p, *s)?;
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v));
                }
                Arc::new(b.finish())
            }
            (SqlType::Double, Rule::Double { min, max }) => {
                let (min, max) = (*min, *max);
                let mut b = Float64Builder::with_capacity(n);
                for (rng, null) in rngs.iter_mut().zip(&nulls) {
                    let v = min + (max - min) * rng.unit();
                    b.append_option((!null).then_some(v));
                }
                Arc::new(b.finish())
            }
            (SqlType::Boolean, _) => {
                let mut b = BooleanBuilder::with_capacity(n);
                for (rng, null) in rngs.iter_mut().zip(&nulls) {
                    let v = rng.next() & 1 == 1;
                    b.append_option((!null).then_some(v));
                }
                Arc::new(b.finish())
            }
            (SqlType::String, Rule::Sequence { .. }) => {
                let mut b = StringBuilder::with_capacity(n, n * 8);
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then(|| v.to_string()));
                }
                Arc::new(b.finish())
            }
            (SqlType::String, Rule::Text { length }) => {
                let length = *length;
                let mut b = StringBuilder::with_capacity(n, n * length);
                let mut text = String::with_capacity(length);
                for (rng, null) in rngs.iter_mut().zip(&nulls) {
                    if *null {
                        b.append_null();
                        continue;
                    }
                    text.clear();
                    for _ in 0..length {
                        text.push(char::from(b"0123456789abcdef"[(rng.next() & 15) as usize]));
                    }
                    b.append_value(&text);
                }
                Arc::new(b.finish())
            }
            (ty @ (SqlType::Timestamp(_) | SqlType::TimestampLtz(_)), _) => {
                let mut b =
                    TimestampMillisecondBuilder::with_capacity(n).with_data_type(ty.to_arrow());
                for (v, null) in values.iter().zip(&nulls) {
                    b.append_option((!null).then_some(*v as i64));
                }
                Arc::new(b.finish())
            }
            (ty, _) => {
                return Err(Error::Internal(format!("datagen rule for a {ty} column")));
            }
        };
        Ok(array)
    }
}

/// splitmix64: small, fast, and the same on every platform.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [0, n) for n >= 1 (n up to 2^64 + 1 spans).
    fn below_u128(&mut self, n: u128) -> u128 {
        let wide = (u128::from(self.next()) << 64) | u128::from(self.next());
        wide % n.max(1)
    }
}

/// The `datagen` connector.
pub struct Datagen;

/// The connector's own options (the fields' are checked apart).
fn table_options() -> Vec<&'static str> {
    DECLARATION
        .options
        .iter()
        .map(|o| o.key)
        .filter(|k| !k.ends_with('.'))
        .collect()
}

static DECLARATION: ConnectorDecl = ConnectorDecl {
    name: "datagen",
    origin: Origin::Flink,
    doc: "rows generated from per-column rules",
    format: FormatUse::None,
    formats: &[],
    options: &[
        OptionDecl::flink(
            "number-of-rows",
            "how many rows; without it (and without a sequence column) the source has no end",
        ),
        OptionDecl::flink("rows-per-second", "the most rows made per second")
            .default_value("10000"),
        OptionDecl::own("seed", "random columns are the same on every run with the same seed")
            .default_value("0"),
        OptionDecl::flink(
            "fields.",
            "`fields.<column>.<property>`, properties `kind`, `start`, `end`, `min`, `max`, `length`, `max-past`, `null-rate`: how a column's values are made",
        ),
    ],
    capabilities: Capabilities {
        read: true,
        unbounded: true,
        ..Capabilities::NONE
    },
    metadata: &[],
    example: "WITH ('connector' = 'datagen', 'number-of-rows' = '100')",
    check: None,
};

impl super::Connector for Datagen {
    fn declaration(&self) -> &'static ConnectorDecl {
        &DECLARATION
    }

    fn open_source(&self, spec: super::SourceSpec<'_>) -> Result<super::OpenedSource> {
        let reader = DatagenSource::open(
            spec.columns,
            &spec.table.options,
            spec.batch_size,
            spec.clock,
        )?;
        Ok(super::OpenedSource {
            splits: vec![super::split::Split::new("datagen", Box::new(reader))],
            ignore_parse_errors: false,
            discovery: None,
        })
    }
}

impl super::split::SplitReader for DatagenSource {
    fn next_batch(&mut self) -> Result<Option<ReadBatch>> {
        DatagenSource::next_batch(self)
    }

    fn stats(&self) -> ReadStats {
        DatagenSource::stats(self)
    }

    fn unpositioned(&self) -> Option<&'static str> {
        Some("the datagen connector")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{Array, AsArray};
    use arrow::datatypes::{Int32Type, Int64Type};

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn columns() -> Vec<(String, SqlType)> {
        vec![
            ("id".into(), SqlType::BigInt),
            ("v".into(), SqlType::Int),
            ("s".into(), SqlType::String),
        ]
    }

    fn rows(src: &mut DatagenSource) -> Result<Vec<RecordBatch>> {
        let mut out = Vec::new();
        while let Some(b) = src.next_batch()? {
            out.push(b.batch);
        }
        Ok(out)
    }

    #[test]
    fn a_sequence_ends_the_source_and_random_fields_respect_bounds() -> Result<()> {
        let opts = options(&[
            ("connector", "datagen"),
            ("rows-per-second", "1000000"),
            ("fields.id.kind", "sequence"),
            ("fields.id.start", "5"),
            ("fields.id.end", "14"),
            ("fields.v.min", "-3"),
            ("fields.v.max", "3"),
            ("fields.s.length", "4"),
        ]);
        let mut src = DatagenSource::open(columns(), &opts, 4, Clock::System)?;
        let batches = rows(&mut src)?;
        let ids: Vec<i64> = batches
            .iter()
            .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
            .collect();
        assert_eq!(ids, (5..=14).collect::<Vec<_>>());
        for b in &batches {
            assert!(b
                .column(1)
                .as_primitive::<Int32Type>()
                .values()
                .iter()
                .all(|v| (-3..=3).contains(v)));
            assert!(b
                .column(2)
                .as_string::<i32>()
                .iter()
                .all(|s| s.is_some_and(|s| s.len() == 4)));
        }
        Ok(())
    }

    #[test]
    fn the_same_seed_makes_the_same_rows() -> Result<()> {
        let make = |seed: &str| -> Result<Vec<RecordBatch>> {
            let opts = options(&[
                ("number-of-rows", "50"),
                ("rows-per-second", "1000000"),
                ("seed", seed),
                ("fields.v.null-rate", "0.5"),
            ]);
            rows(&mut DatagenSource::open(
                columns(),
                &opts,
                7,
                Clock::System,
            )?)
        };
        assert_eq!(make("1")?, make("1")?);
        // Batches of 7 and of 1 make the same rows.
        let single = {
            let opts = options(&[
                ("number-of-rows", "50"),
                ("rows-per-second", "1000000"),
                ("seed", "1"),
                ("fields.v.null-rate", "0.5"),
            ]);
            rows(&mut DatagenSource::open(
                columns(),
                &opts,
                1,
                Clock::System,
            )?)?
        };
        let schema = single[0].schema();
        assert_eq!(
            arrow::compute::concat_batches(&schema, &make("1")?)?,
            arrow::compute::concat_batches(&schema, &single)?
        );
        assert_ne!(make("1")?, make("2")?);
        let nulls: usize = make("1")?.iter().map(|b| b.column(1).null_count()).sum();
        assert!(
            (10..=40).contains(&nulls),
            "{nulls} NULLs of 50 at rate 0.5"
        );
        Ok(())
    }

    #[test]
    fn bad_options_are_errors() {
        let open = |pairs: &[(&str, &str)]| {
            DatagenSource::open(columns(), &options(pairs), 8, Clock::System).is_err()
        };
        assert!(open(&[("fields.nope.kind", "random")]));
        assert!(open(&[("fields.id.kind", "sequence")]));
        assert!(open(&[
            ("fields.id.kind", "sequence"),
            ("fields.id.start", "5"),
            ("fields.id.end", "1")
        ]));
        assert!(open(&[("fields.v.min", "9"), ("fields.v.max", "1")]));
        assert!(open(&[("number-of-rows", "-1")]));
        assert!(open(&[("rows-per-second", "0")]));
        assert!(open(&[("fields.v.kind", "walk")]));
        assert!(open(&[("fields.v.null-rate", "2")]));
        assert!(open(&[("fields.v.max", "3000000000")]));
    }

    #[test]
    fn new_types_are_made_within_their_bounds() -> Result<()> {
        let columns = vec![
            ("ti".into(), SqlType::TinyInt),
            ("si".into(), SqlType::SmallInt),
            ("f".into(), SqlType::Float),
            ("dt".into(), SqlType::Date),
            ("tm".into(), SqlType::Time(0)),
        ];
        let pairs = [
            ("number-of-rows", "50"),
            ("fields.ti.min", "-3"),
            ("fields.ti.max", "3"),
            ("fields.si.kind", "sequence"),
            ("fields.si.start", "32700"),
            ("fields.si.end", "32767"),
        ];
        let mut src = DatagenSource::open(columns.clone(), &options(&pairs), 8, Clock::System)?;
        let batches = rows(&mut src)?;
        let n: usize = batches.iter().map(|b| b.num_rows()).sum();
        assert_eq!(n, 50);
        for b in &batches {
            let ti = b.column(0).as_primitive::<arrow::datatypes::Int8Type>();
            assert!(ti.values().iter().all(|v| (-3..=3).contains(v)));
            let tm = b
                .column(4)
                .as_primitive::<arrow::datatypes::Time32MillisecondType>();
            assert!(tm.values().iter().all(|v| v % 1000 == 0));
            for (field, (_, ty)) in b.schema().fields().iter().zip(&columns) {
                assert_eq!(field.data_type(), &ty.to_arrow());
            }
        }
        let too_wide = [("fields.ti.max", "300")];
        assert!(DatagenSource::open(columns, &options(&too_wide), 8, Clock::System).is_err());
        Ok(())
    }
}

//! What Flink's parser reads differently from tidemark's in otherwise
//! equal SQL: identifiers (Flink's are case-sensitive, and its reserved
//! words must be quoted) and INTERVAL literals (Flink takes no
//! MILLISECOND unit, plural units or unquoted numbers). Each is found in
//! the parsed statements and rewritten at its place.

use super::edits::{Edits, Source};
use super::reserved::is_reserved;
use super::{Finding, Findings};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use tidemark_sql::sql_ast::{self as ast, Spanned, Visit, Visitor};
use tidemark_sql::{span_of, ColumnDef, Statement};

/// One identifier where it is written: a name it declares (a column, a
/// table, an alias) or one it refers to.
struct Occurrence {
    ident: ast::Ident,
    declares: bool,
}

#[derive(Default)]
struct Collector {
    found: Vec<Occurrence>,
    intervals: Vec<ast::Expr>,
}

impl Collector {
    fn refers(&mut self, ident: &ast::Ident) {
        self.found.push(Occurrence {
            ident: ident.clone(),
            declares: false,
        });
    }

    fn declares(&mut self, ident: &ast::Ident) {
        self.found.push(Occurrence {
            ident: ident.clone(),
            declares: true,
        });
    }

    fn set_expr(&mut self, body: &ast::SetExpr) {
        match body {
            ast::SetExpr::Select(select) => {
                for item in &select.projection {
                    if let ast::SelectItem::ExprWithAlias { alias, .. } = item {
                        self.declares(alias);
                    }
                }
            }
            ast::SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left);
                self.set_expr(right);
            }
            _ => {}
        }
    }
}

impl Visitor for Collector {
    type Break = ();

    fn pre_visit_query(&mut self, query: &ast::Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            for cte in &with.cte_tables {
                self.declares(&cte.alias.name);
            }
        }
        self.set_expr(&query.body);
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ast::ObjectName) -> ControlFlow<()> {
        for part in &relation.0 {
            if let Some(ident) = part.as_ident() {
                self.refers(ident);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &ast::TableFactor) -> ControlFlow<()> {
        let alias = match factor {
            ast::TableFactor::Table { alias, .. }
            | ast::TableFactor::Derived { alias, .. }
            | ast::TableFactor::TableFunction { alias, .. } => alias.as_ref(),
            _ => None,
        };
        if let Some(alias) = alias {
            self.declares(&alias.name);
            for column in &alias.columns {
                self.declares(&column.name);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &ast::Expr) -> ControlFlow<()> {
        match expr {
            ast::Expr::Identifier(ident) => self.refers(ident),
            ast::Expr::CompoundIdentifier(parts) => {
                for ident in parts {
                    self.refers(ident);
                }
            }
            ast::Expr::Interval(_) => self.intervals.push(expr.clone()),
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

fn collect(statement: &Statement, into: &mut Collector) {
    match statement {
        Statement::CreateTable(create) => {
            into.declares(&create.name);
            for column in &create.columns {
                into.declares(column.name());
                if let ColumnDef::Computed { expr, .. } = column {
                    let _ = expr.visit(into);
                }
            }
            if let Some(watermark) = &create.watermark {
                into.refers(&watermark.column);
                let _ = watermark.expr.visit(into);
            }
            for key in &create.primary_key {
                into.refers(key);
            }
        }
        Statement::CreateView { name, query, .. } => {
            into.declares(name);
            let _ = query.visit(into);
        }
        Statement::Query { query, .. } => {
            let _ = query.visit(into);
        }
        Statement::Insert { table, query, .. } => {
            into.refers(table);
            let _ = query.visit(into);
        }
        Statement::Explain { statement, .. } => collect(statement, into),
        Statement::ShowCreate { name, .. } => into.refers(name),
        Statement::Describe { table, .. } => into.refers(table),
        Statement::Set { .. }
        | Statement::Reset { .. }
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. } => {}
    }
}

/// The names a window TVF adds, as Flink spells them.
const WINDOW_COLUMNS: [&str; 3] = ["window_start", "window_end", "window_time"];

/// Quotes identifiers that Flink reserves, writes every reference to a
/// name as it was declared (Flink's names are case-sensitive, tidemark's
/// are not), turns double-quoted identifiers into backquoted ones, and
/// writes INTERVAL literals in a form Flink's parser takes.
pub fn respell(
    statements: &[Statement],
    source: &Source<'_>,
    edits: &mut Edits,
    findings: &mut Findings,
) {
    let mut collector = Collector::default();
    for statement in statements {
        collect(statement, &mut collector);
    }
    // Each name by its lower case, with the spellings it is declared in.
    let mut declared: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for name in WINDOW_COLUMNS {
        declared.entry(name.into()).or_default().insert(name.into());
    }
    for o in collector.found.iter().filter(|o| o.declares) {
        declared
            .entry(o.ident.value.to_ascii_lowercase())
            .or_default()
            .insert(o.ident.value.clone());
    }
    let mut quoted = BTreeSet::new();
    let mut double_quoted = BTreeSet::new();
    let mut recased = BTreeSet::new();
    let mut seen = BTreeSet::new();
    for o in &collector.found {
        let span = span_of(o.ident.span);
        if !span.is_known() || !seen.insert((span.start_line, span.start_col)) {
            continue;
        }
        let mut name = o.ident.value.clone();
        if o.ident.quote_style.is_none() && !o.declares {
            if let Some(spellings) = declared.get(&name.to_ascii_lowercase()) {
                if spellings.len() == 1 && !spellings.contains(&name) {
                    let to = spellings.iter().next().cloned().unwrap_or_default();
                    recased.insert(format!("{name} → {to}"));
                    name = to;
                }
            }
        }
        let reserved = is_reserved(&name);
        let needs_quotes = o.ident.quote_style == Some('"') || reserved;
        if name == o.ident.value && !needs_quotes {
            continue;
        }
        if reserved && o.ident.quote_style.is_none() {
            quoted.insert(name.clone());
        }
        if o.ident.quote_style == Some('"') {
            double_quoted.insert(name.clone());
        }
        let text = if needs_quotes || o.ident.quote_style == Some('`') {
            format!("`{}`", name.replace('`', "``"))
        } else {
            name
        };
        let (start, end) = source.range(span);
        edits.replace(start, end, text);
    }
    let listed = |names: BTreeSet<String>, quote: &str| {
        names
            .iter()
            .map(|n| format!("{quote}{n}{quote}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !quoted.is_empty() {
        findings.push(Finding::rewrote(
            tidemark_common::Span::default(),
            format!(
                "quoted {}: reserved words in Flink's parser",
                listed(quoted, "`")
            ),
        ));
    }
    if !double_quoted.is_empty() {
        findings.push(Finding::rewrote(
            tidemark_common::Span::default(),
            format!(
                "{} written with backquotes: Flink's parser takes no double-quoted names",
                listed(double_quoted, "\"")
            ),
        ));
    }
    if !recased.is_empty() {
        findings.push(Finding::rewrote(
            tidemark_common::Span::default(),
            format!(
                "wrote names as declared, since Flink's names are case-sensitive: {}",
                listed(recased, "")
            ),
        ));
    }
    for interval in &collector.intervals {
        let Some(Ok(ms)) = tidemark_sql::interval_millis(interval) else {
            continue;
        };
        let span = span_of(interval.span());
        let (start, end) = expr_range(source, interval);
        let written = &source.text[start..end];
        let flink = flink_interval(ms);
        if normalized(written) == normalized(&flink) || accepted_as_is(interval) {
            continue;
        }
        edits.replace(start, end, flink.clone());
        findings.push(Finding::rewrote(
            span,
            format!("{written} written as {flink}, a form Flink's parser takes"),
        ));
    }
}

/// The byte range of `expr` in the source. sqlparser's span of an
/// INTERVAL covers only its value; this one runs from the `INTERVAL`
/// keyword to the end of its unit and precision.
pub fn expr_range(source: &Source<'_>, expr: &ast::Expr) -> (usize, usize) {
    let (start, end) = source.range(span_of(expr.span()));
    if !matches!(expr, ast::Expr::Interval(_)) {
        return (start, end);
    }
    let text = source.text;
    let before = text[..start].to_ascii_uppercase();
    let start = before.rfind("INTERVAL").unwrap_or(start);
    let mut end = end;
    // The unit: words such as SECOND or DAY TO SECOND, then a precision.
    loop {
        let rest = &text[end..];
        let word_start = rest.len() - rest.trim_start().len();
        let word: String = rest[word_start..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let upper = word.to_ascii_uppercase();
        let is_unit = [
            "YEAR",
            "YEARS",
            "MONTH",
            "MONTHS",
            "DAY",
            "DAYS",
            "HOUR",
            "HOURS",
            "MINUTE",
            "MINUTES",
            "SECOND",
            "SECONDS",
            "MILLISECOND",
            "MILLISECONDS",
            "TO",
        ]
        .contains(&upper.as_str());
        if !is_unit {
            break;
        }
        end += word_start + word.len();
        let rest = &text[end..];
        if rest.starts_with('(') {
            if let Some(close) = rest.find(')') {
                end += close + 1;
            }
        }
    }
    (start, end)
}

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_ascii_uppercase()
}

/// Whether Flink's parser takes the literal as written: a quoted whole
/// number (or seconds with a fraction) and a singular unit of seconds or
/// more.
fn accepted_as_is(interval: &ast::Expr) -> bool {
    use ast::DateTimeField as F;
    let ast::Expr::Interval(iv) = interval else {
        return false;
    };
    let quoted = match iv.value.as_ref() {
        ast::Expr::Value(v) => match &v.value {
            ast::Value::SingleQuotedString(s) => Some(s.trim().to_string()),
            _ => None,
        },
        _ => None,
    };
    let Some(text) = quoted else {
        return false;
    };
    let whole = !text.is_empty()
        && text
            .trim_start_matches('-')
            .chars()
            .all(|c| c.is_ascii_digit());
    let leading_digits = text
        .trim_start_matches('-')
        .split('.')
        .next()
        .map_or(0, str::len);
    match iv.leading_field {
        // Flink's units hold two digits unless a precision says more.
        Some(F::Second) => {
            leading_digits <= 2
                && (whole
                    || text
                        .split_once('.')
                        .is_some_and(|(_, f)| f.chars().all(|c| c.is_ascii_digit())))
        }
        Some(F::Minute | F::Hour | F::Day) => whole && leading_digits <= 2,
        _ => false,
    }
}

/// An INTERVAL of `ms` milliseconds as Flink writes it: the largest unit
/// that holds it whole, with a precision when it has more than two digits;
/// seconds with a fraction otherwise.
fn flink_interval(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let abs = ms.unsigned_abs();
    let units = [
        (86_400_000u64, "DAY"),
        (3_600_000, "HOUR"),
        (60_000, "MINUTE"),
        (1_000, "SECOND"),
    ];
    let with_precision = |n: u64, unit: &str| {
        let digits = n.to_string().len();
        if digits > 2 {
            format!("INTERVAL '{sign}{n}' {unit}({digits})")
        } else {
            format!("INTERVAL '{sign}{n}' {unit}")
        }
    };
    for (size, unit) in units {
        if abs >= size && abs.is_multiple_of(size) {
            return with_precision(abs / size, unit);
        }
    }
    let (seconds, millis) = (abs / 1000, abs % 1000);
    let digits = seconds.to_string().len();
    if digits > 2 {
        format!("INTERVAL '{sign}{seconds}.{millis:03}' SECOND({digits}, 3)")
    } else {
        format!("INTERVAL '{sign}{seconds}.{millis:03}' SECOND")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_are_written_in_flinks_units() {
        assert_eq!(flink_interval(500), "INTERVAL '0.500' SECOND");
        assert_eq!(flink_interval(1_500), "INTERVAL '1.500' SECOND");
        assert_eq!(flink_interval(5_000), "INTERVAL '5' SECOND");
        assert_eq!(flink_interval(120_000), "INTERVAL '2' MINUTE");
        assert_eq!(flink_interval(86_400_000), "INTERVAL '1' DAY");
        assert_eq!(flink_interval(-3_000), "INTERVAL '-3' SECOND");
        assert_eq!(flink_interval(100_000), "INTERVAL '100' SECOND(3)");
        assert_eq!(flink_interval(100_500), "INTERVAL '100.500' SECOND(3, 3)");
    }
}

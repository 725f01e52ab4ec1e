//! The session's declared tables: `CREATE TABLE` checked and stored.

use crate::expr_binder::{nearest, ExprBinder};
use crate::statement::{options_map, ColumnDef, CreateTable};
use crate::types::sql_type;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use tidemark_common::catalog::{ColumnKind, TableDef, Watermark};
use tidemark_common::connector::Declarations;
use tidemark_common::expr::{Expr, ScalarFunction};
use tidemark_common::{Error, Field, Result, Schema, Span};

#[derive(Clone, Debug)]
pub struct Catalog {
    /// What the connectors and formats declare: tables are checked
    /// against it.
    connectors: Arc<Declarations>,
    tables: BTreeMap<String, Arc<TableDef>>,
    /// Views by lower-case name: their name as written and their query,
    /// bound where they are used.
    views: BTreeMap<String, (String, Arc<sqlparser::ast::Query>)>,
    /// Each table's `CREATE TABLE` as written, by lower-case name: `SHOW
    /// CREATE TABLE` and `DESCRIBE` show expressions as the user wrote
    /// them rather than as they were bound.
    declarations: BTreeMap<String, Arc<CreateTable>>,
}

impl Catalog {
    /// An empty catalog whose tables are checked against `connectors`.
    pub fn new(connectors: Arc<Declarations>) -> Self {
        Catalog {
            connectors,
            tables: BTreeMap::new(),
            views: BTreeMap::new(),
            declarations: BTreeMap::new(),
        }
    }

    /// What the connectors and formats declare.
    pub fn connectors(&self) -> &Declarations {
        &self.connectors
    }

    pub fn table(&self, name: &str, span: Span) -> Result<Arc<TableDef>> {
        let key = name.to_ascii_lowercase();
        self.tables.get(&key).cloned().ok_or_else(|| {
            let mut err = Error::plan(format!("unknown table '{name}'"), span);
            let names = self
                .tables
                .values()
                .map(|t| t.name.as_str())
                .chain(self.view_names());
            if let Some(near) = nearest(name, names) {
                err = err.with_hint(format!("did you mean '{near}'?"));
            } else if self.tables.is_empty() {
                err = err.with_hint("declare it first with CREATE TABLE");
            }
            err
        })
    }

    pub fn tables(&self) -> impl Iterator<Item = &Arc<TableDef>> {
        self.tables.values()
    }

    /// The query of view `name`, if there is one.
    pub fn view(&self, name: &str) -> Option<Arc<sqlparser::ast::Query>> {
        self.views
            .get(&name.to_ascii_lowercase())
            .map(|(_, q)| Arc::clone(q))
    }

    /// The `CREATE TABLE` that declared table `name`.
    pub fn declaration(&self, name: &str) -> Option<&CreateTable> {
        self.declarations
            .get(&name.to_ascii_lowercase())
            .map(|d| d.as_ref())
    }

    pub fn view_names(&self) -> impl Iterator<Item = &str> {
        self.views.values().map(|(n, _)| n.as_str())
    }

    /// Stores a view; its query is checked by the caller binding it once.
    pub fn create_view(
        &mut self,
        name: &sqlparser::ast::Ident,
        query: &sqlparser::ast::Query,
    ) -> Result<()> {
        let key = name.value.to_ascii_lowercase();
        if self.tables.contains_key(&key) || self.views.contains_key(&key) {
            return Err(Error::plan(
                format!("a table or view named '{}' already exists", name.value),
                crate::statement::span_of(name.span),
            ));
        }
        self.views
            .insert(key, (name.value.clone(), Arc::new(query.clone())));
        Ok(())
    }

    /// Checks a `CREATE TABLE` and stores it; `base_dir` is the folder a
    /// relative `'path'` is read from.
    pub fn create_table(&mut self, create: &CreateTable, base_dir: &Path) -> Result<()> {
        let key = create.name.value.to_ascii_lowercase();
        if self.tables.contains_key(&key) {
            if create.if_not_exists {
                return Ok(());
            }
            return Err(Error::plan(
                format!("table '{}' already exists", create.name.value),
                crate::statement::span_of(create.name.span),
            ));
        }
        let options = options_map(&create.options);
        // What the read gives before anything is computed: the physical
        // columns, then the metadata ones, each in declared order.
        let mut read_fields = Vec::new();
        for metadata in [false, true] {
            for col in &create.columns {
                let (name, data_type, not_null, span) = match col {
                    ColumnDef::Physical {
                        name,
                        data_type,
                        not_null,
                        span,
                    } if !metadata => (name, data_type, not_null, span),
                    ColumnDef::Metadata {
                        name,
                        data_type,
                        not_null,
                        span,
                        ..
                    } if metadata => (name, data_type, not_null, span),
                    _ => continue,
                };
                let mut field = Field::new(name.value.clone(), sql_type(data_type, *span)?);
                field.nullable = !not_null;
                read_fields.push(field);
            }
        }
        let read_schema = Schema::new(read_fields.clone());
        let physical_count = create
            .columns
            .iter()
            .filter(|c| matches!(c, ColumnDef::Physical { .. }))
            .count();
        let mut metadata = read_fields.split_off(physical_count).into_iter();
        let mut physical = read_fields.into_iter();
        let mut fields = Vec::new();
        let mut kinds = Vec::new();
        for col in &create.columns {
            match col {
                ColumnDef::Physical { .. } => {
                    fields.extend(physical.next());
                    kinds.push(ColumnKind::Physical);
                }
                ColumnDef::Metadata {
                    name,
                    key,
                    virtual_column,
                    ..
                } => {
                    fields.extend(metadata.next());
                    kinds.push(ColumnKind::Metadata {
                        key: key
                            .as_ref()
                            .map_or_else(|| name.value.clone(), |(k, _)| k.clone()),
                        virtual_column: *virtual_column,
                    });
                }
                ColumnDef::Computed { name, expr, span } => {
                    let bound = ExprBinder::new(&read_schema, "a computed column").bind(expr)?;
                    let proctime = matches!(
                        bound,
                        Expr::Function {
                            func: ScalarFunction::ProcTime,
                            ..
                        }
                    );
                    if !proctime && bound.to_string().contains("PROCTIME()") {
                        return Err(Error::plan(
                            "PROCTIME() must be the whole computed column",
                            *span,
                        )
                        .with_hint("declare `pt AS PROCTIME()` and compute from pt in the query"));
                    }
                    fields.push(Field::new(name.value.clone(), bound.ty()).proctime(proctime));
                    kinds.push(ColumnKind::Computed(bound));
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        for col in &create.columns {
            if !seen.insert(col.name().value.to_ascii_lowercase()) {
                return Err(Error::plan(
                    format!("column '{}' is declared twice", col.name().value),
                    crate::statement::span_of(col.name().span),
                ));
            }
        }
        let mut schema = Schema::new(fields);
        let watermark = match &create.watermark {
            None => None,
            Some(w) => {
                let column_span = crate::statement::span_of(w.column.span);
                let Some(column) = schema.index_of(&w.column.value) else {
                    let mut err = Error::plan(
                        format!("WATERMARK FOR unknown column '{}'", w.column.value),
                        column_span,
                    );
                    if let Some(near) = nearest(&w.column.value, schema.names()) {
                        err = err.with_hint(format!("did you mean '{near}'?"));
                    }
                    return Err(err);
                };
                let ty = schema.field(column).ty.clone();
                if schema.field(column).proctime {
                    return Err(Error::plan(
                        format!("'{}' is a processing-time attribute; a watermark needs an event-time column", w.column.value),
                        column_span,
                    ));
                }
                if !ty.is_timestamp() {
                    return Err(Error::plan(
                        format!("the rowtime column '{}' must be TIMESTAMP(3) or TIMESTAMP_LTZ(3), not {ty}", w.column.value),
                        column_span,
                    ));
                }
                let expr = ExprBinder::new(&schema, "a WATERMARK expression").bind(&w.expr)?;
                if expr.ty() != ty {
                    return Err(Error::plan(
                        format!(
                            "the watermark expression must have the rowtime's type {ty}, not {}",
                            expr.ty()
                        ),
                        crate::expr_binder::spanned(&w.expr),
                    ));
                }
                schema.fields[column].rowtime = true;
                Some(Watermark { column, expr })
            }
        };
        crate::table_options::validate(&self.connectors, &options, create)?;
        crate::table_options::validate_metadata(&self.connectors, &options, create, &schema)?;
        let primary_key = create.primary_key.iter().map(|i| i.value.clone()).collect();
        self.declarations
            .insert(key.clone(), Arc::new(create.clone()));
        self.tables.insert(
            key,
            Arc::new(TableDef {
                name: create.name.value.clone(),
                schema,
                kinds,
                watermark,
                options,
                base_dir: base_dir.to_path_buf(),
                primary_key,
            }),
        );
        Ok(())
    }
}

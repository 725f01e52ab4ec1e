//! `GROUPING SETS`, `ROLLUP` and `CUBE` in a window aggregation's GROUP
//! BY: the grouping sets they spell out, and the values of `GROUPING(..)`
//! and `GROUPING_ID(..)` in each.
//!
//! The aggregation groups by the union of every set's keys plus the set's
//! number, which an Expand step below it adds after nulling the keys a set
//! leaves out ([`crate::plan::LogicalPlan::Expand`]); so a NULL key value
//! of one set stays apart from the NULL of a key another set leaves out.

use crate::expr_binder::spanned;
use datafusion_common::ScalarValue;
use sqlparser::ast;
use tidemark_common::expr::{BinaryOp, Expr};
use tidemark_common::{Error, Result, SqlType};

/// How many grouping sets one GROUP BY may spell out (CUBE of 12 keys).
const MAX_SETS: usize = 4096;

/// The grouping sets of a GROUP BY list, each the expressions it groups
/// by: plain items are in every set; several GROUPING SETS, ROLLUP or
/// CUBE items multiply, as in SQL. A list without them is one set.
pub(super) fn grouping_sets(items: &[ast::Expr]) -> Result<Vec<Vec<&ast::Expr>>> {
    let mut sets: Vec<Vec<&ast::Expr>> = vec![vec![]];
    for item in items {
        let choices: Vec<Vec<&ast::Expr>> = match item {
            ast::Expr::GroupingSets(list) => list.iter().map(|s| s.iter().collect()).collect(),
            ast::Expr::Rollup(list) => (0..=list.len())
                .rev()
                .map(|n| list[..n].iter().flatten().collect())
                .collect(),
            ast::Expr::Cube(list) => {
                if list.len() > MAX_SETS.trailing_zeros() as usize {
                    return Err(too_many(item));
                }
                // From every element down to none, as ROLLUP lists them.
                let n = list.len();
                (0..1usize << n)
                    .rev()
                    .map(|mask| {
                        (0..n)
                            .filter(|i| mask & (1 << (n - 1 - i)) != 0)
                            .flat_map(|i| list[i].iter())
                            .collect()
                    })
                    .collect()
            }
            plain => vec![vec![plain]],
        };
        if sets.len() * choices.len() > MAX_SETS {
            return Err(too_many(item));
        }
        sets = sets
            .iter()
            .flat_map(|set| {
                choices.iter().map(move |choice| {
                    let mut s = set.clone();
                    s.extend(choice.iter().copied());
                    s
                })
            })
            .collect();
    }
    Ok(sets)
}

fn too_many(item: &ast::Expr) -> Error {
    Error::plan(
        format!("GROUP BY spells out more than {MAX_SETS} grouping sets"),
        spanned(item),
    )
}

/// What `GROUPING(..)` needs: the aggregation's keys, which of them each
/// set groups by, and the output column holding a row's set number.
#[derive(Clone, Debug)]
pub struct GroupingIds {
    pub keys: Vec<Expr>,
    /// Per set: whether it groups by each key.
    pub present: Vec<Vec<bool>>,
    pub set_column: Expr,
}

impl GroupingIds {
    /// `GROUPING(args)` / `GROUPING_ID(args)`: per argument, 1 where the
    /// row's set leaves it out and 0 where it groups by it, the first
    /// argument the highest bit. `key_of` gives an argument's key index,
    /// `None` for a column every set groups by (a window column).
    pub fn value(sets: Option<&GroupingIds>, key_of: &[Option<usize>]) -> Expr {
        let bits = |present: &[bool]| {
            key_of.iter().fold(0i64, |acc, key| {
                let left_out = key.is_some_and(|k| !present[k]);
                (acc << 1) | i64::from(left_out)
            })
        };
        let Some(sets) = sets else {
            return bigint(0);
        };
        let values: Vec<i64> = sets.present.iter().map(|p| bits(p)).collect();
        if values.windows(2).all(|w| w[0] == w[1]) {
            return bigint(values[0]);
        }
        let branches = values
            .iter()
            .enumerate()
            .map(|(set, v)| {
                let is_set = Expr::Binary {
                    op: BinaryOp::Eq,
                    left: Box::new(sets.set_column.clone()),
                    right: Box::new(bigint(set as i64)),
                    ty: SqlType::Boolean,
                };
                (is_set, bigint(*v))
            })
            .collect();
        Expr::Case {
            branches,
            otherwise: None,
            ty: SqlType::BigInt,
        }
    }
}

fn bigint(v: i64) -> Expr {
    Expr::Literal {
        value: ScalarValue::Int64(Some(v)),
        ty: SqlType::BigInt,
    }
}

/// The `GROUPING(..)` or `GROUPING_ID(..)` call an expression is.
pub fn grouping_call(e: &ast::Expr) -> Option<&ast::Function> {
    match e {
        ast::Expr::Function(f) if f.over.is_none() => {
            let name = f.name.to_string().to_ascii_uppercase();
            matches!(name.as_str(), "GROUPING" | "GROUPING_ID").then_some(f)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::parser::Parser;

    fn sets_of(group_by: &str) -> Vec<String> {
        let sql = format!("SELECT 1 FROM t GROUP BY {group_by}");
        let statements = Parser::parse_sql(&crate::dialect::FlinkDialect, &sql).expect("parses");
        let ast::Statement::Query(q) = &statements[0] else {
            panic!("query")
        };
        let ast::SetExpr::Select(select) = q.body.as_ref() else {
            panic!("select")
        };
        let ast::GroupByExpr::Expressions(items, _) = &select.group_by else {
            panic!("group by")
        };
        grouping_sets(items)
            .expect("sets")
            .iter()
            .map(|s| {
                let names: Vec<String> = s.iter().map(|e| e.to_string()).collect();
                format!("({})", names.join(", "))
            })
            .collect()
    }

    #[test]
    fn rollup_cube_and_grouping_sets_spell_out_their_sets() {
        assert_eq!(sets_of("w, ROLLUP (a, b)"), ["(w, a, b)", "(w, a)", "(w)"]);
        assert_eq!(
            sets_of("CUBE (a, b), w"),
            ["(a, b, w)", "(a, w)", "(b, w)", "(w)"]
        );
        assert_eq!(
            sets_of("GROUPING SETS ((a, b), (a), ()), w"),
            ["(a, b, w)", "(a, w)", "(w)"]
        );
        assert_eq!(
            sets_of("ROLLUP (a), CUBE (b)"),
            ["(a, b)", "(a)", "(b)", "()"]
        );
        assert_eq!(sets_of("w, a"), ["(w, a)"]);
    }

    #[test]
    fn grouping_bits_put_the_first_argument_highest() {
        let ids = GroupingIds {
            keys: vec![],
            present: vec![vec![true, true], vec![true, false], vec![false, false]],
            set_column: Expr::column(2, "$set", SqlType::BigInt),
        };
        let Expr::Case { branches, .. } = GroupingIds::value(Some(&ids), &[Some(0), Some(1)])
        else {
            panic!("a CASE on the set")
        };
        let values: Vec<Option<i64>> = branches.iter().map(|(_, v)| v.int_literal()).collect();
        assert_eq!(values, [Some(0), Some(1), Some(3)]);
        // A window column is in every set: always 0.
        assert_eq!(
            GroupingIds::value(Some(&ids), &[None]).int_literal(),
            Some(0)
        );
        assert_eq!(GroupingIds::value(None, &[Some(0)]).int_literal(), Some(0));
    }
}

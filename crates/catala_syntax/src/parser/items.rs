//! Top-level items of a code block: structure, enumeration and scope declarations, top-level
//! definitions, and scope uses with their definitions, rules, assertions and date rounding.

use super::{PResult, Parser, Valid};
use crate::ast::*;
use crate::keywords::{self, BuiltinName, Keyword as K};
use crate::lexer::TokenKind;
use crate::literate::CodeBlock;

impl Parser<'_> {
    pub(super) fn code_items(&mut self, block: &CodeBlock) -> PResult<Vec<Item>> {
        let mut items: Vec<Item> = Vec::new();
        loop {
            let attributes = self.attributes()?;
            if matches!(self.peek(), TokenKind::Eof) {
                if let Some(a) = attributes.first() {
                    return Err(self.error_at(
                        a.span,
                        format!("Unattached trailing attribute #[{}]", a.path.join(".")),
                    ));
                }
                return Ok(items);
            }
            let start = self.span();
            let after_scope_use =
                matches!(items.last().map(|i| &i.kind), Some(ItemKind::ScopeUse(_)));
            let Some(kind) = self.code_item(after_scope_use)? else {
                continue;
            };
            items.push(Item {
                kind,
                span: self.since(start),
                headings: block.headings.clone(),
                language: block.language,
                metadata: block.metadata,
                attributes,
            });
        }
    }

    /// One top-level item (`declaration type T: external`, an abstract type, is an enumeration
    /// without cases); `None` for declarations lexprobe reads but does not represent.
    fn code_item(&mut self, after_scope_use: bool) -> PResult<Option<ItemKind>> {
        if self.eat_kw(K::Scope).is_some() {
            return self.scope_use().map(Some);
        }
        if self.eat_kw(K::Declaration).is_none() {
            return Err(if after_scope_use {
                self.error_valid(
                    Some(
                        "the next item in the scope (rule, definition or assertion), or the \
                         start of a new top-level declaration",
                    ),
                    &[
                        Valid::Kw(K::Definition),
                        Valid::Kw(K::Rule),
                        Valid::Kw(K::Assertion),
                        Valid::Kw(K::Exception),
                        Valid::Kw(K::Label),
                        Valid::Kw(K::Date),
                        Valid::Kw(K::Declaration),
                        Valid::Kw(K::Scope),
                    ],
                )
            } else {
                self.error_valid(
                    Some("a top-level declaration or a scope use"),
                    &[Valid::Kw(K::Declaration), Valid::Kw(K::Scope)],
                )
            });
        }
        if self.eat_kw(K::Structure).is_some() {
            return self.struct_decl().map(Some);
        }
        if self.eat_kw(K::Enumeration).is_some() {
            return self.enum_decl().map(Some);
        }
        if self.eat_kw(K::Scope).is_some() {
            return self.scope_decl().map(Some);
        }
        if self.at_kw(K::Type) && matches!(self.peek_at(1), TokenKind::UIdent(_)) {
            // An abstract type: no value of it can be written in Catala (only an external
            // module's functions give some), as an enumeration without cases.
            self.bump();
            let name = self.uident()?;
            self.expect(TokenKind::Colon)?;
            self.expect_kw(K::External)?;
            return Ok(Some(ItemKind::EnumDecl(EnumDecl {
                name,
                cases: Vec::new(),
                abstract_type: true,
            })));
        }
        if self.at_lident(0) {
            return self.top_def().map(Some);
        }
        Err(self.error("\"structure\", \"enumeration\", \"scope\" or a name after \"declaration\""))
    }

    fn struct_decl(&mut self) -> PResult<ItemKind> {
        let name = self.uident()?;
        self.expect(TokenKind::Colon)?;
        let mut fields = Vec::new();
        loop {
            let save = self.pos;
            self.attributes()?;
            if self.eat_kw(K::Data).is_some() {
                let name = self.lident()?;
                self.expect_kw(K::Content)?;
                let typ = self.typ()?;
                let params = self.depends_stance()?;
                fields.push(StructField { name, typ, params });
            } else if let Some(span) = self.eat_kw(K::Condition) {
                let name = self.lident()?;
                let params = self.depends_stance()?;
                let typ = Type {
                    kind: TypeKind::Boolean,
                    span,
                };
                fields.push(StructField { name, typ, params });
            } else {
                self.pos = save;
                break;
            }
        }
        Ok(ItemKind::StructDecl(StructDecl { name, fields }))
    }

    fn enum_decl(&mut self) -> PResult<ItemKind> {
        let name = self.uident()?;
        self.expect(TokenKind::Colon)?;
        let mut cases = Vec::new();
        loop {
            let save = self.pos;
            self.attributes()?;
            if self.eat(&TokenKind::Alt).is_none() {
                self.pos = save;
                break;
            }
            let name = self.uident()?;
            let payload = if self.eat_kw(K::Content).is_some() {
                Some(self.typ()?)
            } else {
                None
            };
            cases.push(EnumCase { name, payload });
        }
        Ok(ItemKind::EnumDecl(EnumDecl {
            name,
            cases,
            abstract_type: false,
        }))
    }

    fn scope_decl(&mut self) -> PResult<ItemKind> {
        let name = self.uident()?;
        self.expect(TokenKind::Colon)?;
        let mut items = Vec::new();
        loop {
            let save = self.pos;
            self.attributes()?;
            let starts_item = matches!(
                self.peek(),
                TokenKind::Keyword(K::Context | K::Input | K::Internal | K::Output)
            ) || self.at_lident(0);
            if !starts_item {
                self.pos = save;
                break;
            }
            items.push(self.scope_decl_item()?);
        }
        Ok(ItemKind::ScopeDecl(ScopeDecl { name, items }))
    }

    fn scope_decl_item(&mut self) -> PResult<ScopeDeclItem> {
        let start = self.span();
        let input = if self.eat_kw(K::Context).is_some() {
            Some(InputKind::Context)
        } else if self.eat_kw(K::Input).is_some() {
            Some(InputKind::Input)
        } else if self.eat_kw(K::Internal).is_some() {
            Some(InputKind::Internal)
        } else {
            None
        };
        let output = self.eat_kw(K::Output).is_some();
        let io_span = if input.is_some() || output {
            self.since(start)
        } else {
            self.span()
        };
        let name = self.lident()?;
        if self.eat_kw(K::Scope).is_some() {
            if let Some(kind) = input {
                if kind != InputKind::Internal || output {
                    return Err(self.error_at(
                        io_span,
                        "Scope declaration does not support input qualifiers ('internal', \
                         'input' or 'context')",
                    ));
                }
            }
            let scope = self.quident()?;
            return Ok(ScopeDeclItem::SubScope(SubScopeDecl {
                name,
                scope,
                output,
                span: self.since(start),
            }));
        }
        if input == Some(InputKind::Internal) && output {
            return Err(self.error_at(
                io_span,
                "A variable cannot be declared both 'internal' and 'output'.",
            ));
        }
        let input = match (input, output) {
            (Some(i), _) => i,
            (None, true) => InputKind::Internal,
            (None, false) => {
                return Err(self.error_at(
                    name.span,
                    "Variable declaration requires input qualification ('internal', 'input' \
                     or 'context')",
                ))
            }
        };
        let io = IoQualifier {
            input,
            output,
            span: io_span,
        };
        let (is_condition, typ) = if let Some(span) = self.eat_kw(K::Condition) {
            (
                true,
                Type {
                    kind: TypeKind::Boolean,
                    span,
                },
            )
        } else if self.eat_kw(K::Content).is_some() {
            (false, self.typ()?)
        } else {
            return Err(self.error_valid(
                None,
                &[
                    Valid::Kw(K::Content),
                    Valid::Kw(K::Condition),
                    Valid::Kw(K::Scope),
                ],
            ));
        };
        let params = self.depends_stance()?;
        let mut states = Vec::new();
        while self.eat_kw(K::State).is_some() {
            states.push(self.lident()?);
        }
        Ok(ScopeDeclItem::Var(VarDecl {
            name,
            io,
            is_condition,
            typ,
            params,
            states,
            span: self.since(start),
        }))
    }

    /// `depends on x content T, y content U` (optionally parenthesised).
    fn depends_stance(&mut self) -> PResult<Vec<Param>> {
        if self.eat_kw(K::Depends).is_none() {
            return Ok(Vec::new());
        }
        let paren = self.eat(&TokenKind::LParen).is_some();
        let mut params = Vec::new();
        loop {
            self.attributes()?;
            let name = self.lident()?;
            self.expect_kw(K::Content)?;
            let typ = self.typ()?;
            params.push(Param { name, typ });
            if self.eat(&TokenKind::Comma).is_none() {
                break;
            }
        }
        if paren {
            self.expect(TokenKind::RParen)?;
        }
        Ok(params)
    }

    fn top_def(&mut self) -> PResult<ItemKind> {
        let name = self.lident()?;
        self.expect_kw(K::Content)?;
        let typ = self.typ()?;
        let params = self.depends_stance()?;
        let (body, external) = if self.eat_kw(K::Equals).is_some() {
            (self.expr(0)?, false)
        } else {
            let span = self.since(name.span);
            let placeholder = Expr {
                kind: ExprKind::Impossible,
                span,
            };
            (placeholder, true)
        };
        Ok(ItemKind::TopDef(TopDef {
            name,
            typ,
            params,
            body,
            external,
        }))
    }

    fn scope_use(&mut self) -> PResult<ItemKind> {
        let scope = self.quident()?;
        let condition = if self.eat_kw(K::UnderCondition).is_some() {
            Some(self.expr(0)?)
        } else {
            None
        };
        self.expect(TokenKind::Colon)?;
        let mut items = Vec::new();
        loop {
            let save = self.pos;
            let attributes = self.attributes()?;
            let item = match self.peek() {
                TokenKind::Keyword(K::Label | K::Exception | K::Definition | K::Rule) => {
                    let mut def = self.definition()?;
                    def.attributes = attributes;
                    ScopeUseItem::Definition(def)
                }
                TokenKind::Keyword(K::Assertion) => {
                    let start = self.bump().span;
                    let expr = self.expr(0)?;
                    ScopeUseItem::Assertion(Assertion {
                        expr,
                        span: self.since(start),
                        attributes,
                    })
                }
                TokenKind::Keyword(K::Date) => {
                    let start = self.bump().span;
                    let round = self.lident()?;
                    if keywords::builtin(self.lang, &round.name)
                        != Some(BuiltinName::Function(Builtin::Round))
                    {
                        return Err(self.error_at(
                            round.span,
                            "Expected the form 'date round up' or 'date round down'",
                        ));
                    }
                    let dir = if self.eat_kw(K::Increasing).is_some() {
                        DateRounding::Up
                    } else if self.eat_kw(K::Decreasing).is_some() {
                        DateRounding::Down
                    } else {
                        return Err(self.error("\"up\" or \"down\""));
                    };
                    ScopeUseItem::DateRounding(dir, self.since(start))
                }
                _ => {
                    self.pos = save;
                    break;
                }
            };
            items.push(item);
        }
        Ok(ItemKind::ScopeUse(ScopeUse {
            scope,
            condition,
            items,
        }))
    }

    /// `[label l] [exception [l]] definition|rule ...`.
    fn definition(&mut self) -> PResult<Definition> {
        let start = self.span();
        let label = if self.eat_kw(K::Label).is_some() {
            Some(self.lident()?)
        } else {
            None
        };
        let exception = if let Some(span) = self.eat_kw(K::Exception) {
            if self.at_lident(0) {
                ExceptionTo::Label(self.lident()?)
            } else {
                ExceptionTo::Unlabeled(span)
            }
        } else {
            ExceptionTo::None
        };
        let is_rule = if self.eat_kw(K::Rule).is_some() {
            true
        } else if self.eat_kw(K::Definition).is_some() {
            false
        } else {
            return Err(self.error("\"definition\" or \"rule\""));
        };
        let target_start = self.span();
        let mut path = vec![self.lident()?];
        while matches!(self.peek(), TokenKind::Dot) {
            self.bump();
            path.push(self.lident()?);
        }
        let target_end = self.prev_span();
        let mut params = Vec::new();
        if self.eat_kw(K::Of).is_some() {
            params.push(self.lident()?);
            while self.eat(&TokenKind::Comma).is_some() {
                params.push(self.lident()?);
            }
        }
        let state = if self.eat_kw(K::State).is_some() {
            Some(self.lident()?)
        } else {
            None
        };
        let target = DefTarget {
            path,
            state,
            span: target_start.to(target_end),
        };
        let condition = if self.eat_kw(K::UnderCondition).is_some() {
            let c = self.expr(0)?;
            self.expect_kw(K::Consequence)?;
            Some(c)
        } else {
            None
        };
        let body = if is_rule {
            let kw_start = self.span();
            let negated = self.eat_kw(K::Not).is_some();
            if self.eat_kw(K::Fulfilled).is_none() {
                return Err(self.error("\"fulfilled\", \"not fulfilled\" or \"under condition\""));
            }
            DefBody::Fulfilled(!negated, self.since(kw_start))
        } else {
            if self.eat_kw(K::Equals).is_none() {
                return Err(self.error_valid(
                    Some(
                        "'under condition' followed by a condition, 'equals' followed by the \
                         definition body, or the rest of the variable qualified name",
                    ),
                    &[
                        Valid::Text("."),
                        Valid::Kw(K::UnderCondition),
                        Valid::Kw(K::Equals),
                        Valid::Kw(K::State),
                        Valid::Kw(K::Of),
                    ],
                ));
            }
            DefBody::Expr(self.expr(0)?)
        };
        Ok(Definition {
            label,
            exception,
            target,
            params,
            condition,
            body,
            is_rule,
            span: self.since(start),
            attributes: Vec::new(),
        })
    }
}

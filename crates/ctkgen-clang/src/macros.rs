//! Evaluates object-like macros to typed constants, casts included (`((FooDevice)-1)`), and
//! recognises the macros that rename functions to versioned symbols.

use std::collections::{BTreeMap, BTreeSet};

use ctkgen_ir::{Constant, ConstantValue, Enum, Primitive, Type, Typedef};

use crate::build::{parse_integer, MacroDef};

/// A function rename: `#define fooCreate fooCreate_v4` or
/// `#define fooCopy PER_THREAD(fooCopy_v2)`, `PER_THREAD` being a per-thread wrapper macro.
pub struct Rename {
    pub public: String,
    pub symbol: String,
    /// The per-thread-default-stream suffix the wrapper macro would add, if any.
    pub per_thread_suffix: Option<String>,
}

/// `wrappers`: the function-like macros that name a per-thread variant, with the suffix each adds.
pub fn renames(macros: &[MacroDef], symbols: &BTreeSet<String>, wrappers: &BTreeMap<String, String>) -> Vec<Rename> {
    let mut out = Vec::new();
    for m in macros {
        let body: Vec<&str> = m.body.iter().map(String::as_str).collect();
        let (symbol, suffix) = match body.as_slice() {
            [symbol] => (*symbol, None),
            [wrapper, "(", symbol, ")"] => match wrappers.get(*wrapper) {
                Some(suffix) => (*symbol, Some(suffix.clone())),
                None => continue,
            },
            _ => continue,
        };
        if symbols.contains(symbol) && (symbol != m.name || suffix.is_some()) {
            out.push(Rename { public: m.name.clone(), symbol: symbol.to_string(), per_thread_suffix: suffix });
        }
    }
    out
}

/// Macros that only give a typedef another name (`#define NEW_NAME OldTypedef`), as typedefs:
/// C code may declare with either name, so bindings offer both. A name the model already has is
/// left alone.
pub fn type_aliases(macros: &[MacroDef], typedefs: &[Typedef]) -> Vec<Typedef> {
    let by_name: BTreeMap<&str, &Typedef> = typedefs.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out: Vec<Typedef> = Vec::new();
    for m in macros {
        let [target] = m.body.as_slice() else { continue };
        let Some(aliased) = by_name.get(target.as_str()) else { continue };
        if m.name.starts_with('_') || by_name.contains_key(m.name.as_str()) || out.iter().any(|t| t.name == m.name) {
            continue;
        }
        out.push(Typedef {
            name: m.name.clone(),
            ty: Type::Typedef { name: aliased.name.clone() },
            size: aliased.size,
            align: aliased.align,
            explicit_alignments: Vec::new(),
            system: false,
            doc: m.doc.clone(),
            header: m.header.clone(),
        });
    }
    out
}

/// Evaluates every macro that is a constant expression; others are left out. A macro may name
/// an enumerator of `enums` (`#define NEW_NAME OLD_ENUMERATOR`): it has the enumerator's value,
/// typed by its enum, as C++ types it.
pub fn constants(macros: &[MacroDef], typedef_names: &BTreeSet<String>, enums: &[Enum]) -> Vec<Constant> {
    let mut known: BTreeMap<String, (ConstantValue, Type)> = BTreeMap::new();
    for e in enums {
        for c in &e.constants {
            known.insert(c.name.clone(), (ConstantValue::Int(c.value), Type::Enum { name: e.name.clone() }));
        }
    }
    let mut out = Vec::new();
    for m in macros {
        if m.name.starts_with('_') || m.body.is_empty() {
            continue;
        }
        let mut parser = Parser { tokens: &m.body, pos: 0, known: &known, typedefs: typedef_names };
        let Some((value, ty)) = parser.expr() else { continue };
        if parser.pos != m.body.len() {
            continue;
        }
        // JSON has no infinity or NaN: such a constant would serialise as null and the model
        // would no longer read back.
        if matches!(value, ConstantValue::Float(f) if !f.is_finite()) {
            continue;
        }
        known.insert(m.name.clone(), (value.clone(), ty.clone()));
        out.push(Constant {
            name: m.name.clone(),
            ty,
            value,
            expr: m.body.join(" "),
            doc: m.doc.clone(),
            header: m.header.clone(),
        });
    }
    out
}

struct Parser<'a> {
    tokens: &'a [String],
    pos: usize,
    known: &'a BTreeMap<String, (ConstantValue, Type)>,
    typedefs: &'a BTreeSet<String>,
}

type Value = (ConstantValue, Type);

const BINARY_LEVELS: &[&[&str]] = &[&["|"], &["^"], &["&"], &["<<", ">>"], &["+", "-"], &["*", "/", "%"]];

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(String::as_str)
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.peek() == Some(token) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Option<Value> {
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> Option<Value> {
        if level == BINARY_LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(op) = self.peek().filter(|t| BINARY_LEVELS[level].contains(t)).map(str::to_string) {
            self.pos += 1;
            let right = self.binary(level + 1)?;
            left = apply(&op, left, right)?;
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<Value> {
        match self.peek()? {
            "-" => {
                self.pos += 1;
                let (v, ty) = self.unary()?;
                match v {
                    ConstantValue::Int(i) => Some((ConstantValue::Int(-i), ty)),
                    ConstantValue::Float(f) => Some((ConstantValue::Float(-f), ty)),
                    ConstantValue::Str(_) => None,
                }
            }
            "+" => {
                self.pos += 1;
                self.unary()
            }
            "~" => {
                self.pos += 1;
                let (v, ty) = self.unary()?;
                let ConstantValue::Int(i) = v else { return None };
                Some((ConstantValue::Int(wrap(!i, &ty)), ty))
            }
            "sizeof" | "_Alignof" | "__alignof__" | "alignof" => {
                // Of a builtin type only: a typedef's size is not known at this point.
                let size = self.peek() == Some("sizeof");
                self.pos += 1;
                if !self.eat("(") {
                    return None;
                }
                let ty = self.cast_type()?;
                if !self.eat(")") {
                    return None;
                }
                let (bytes, align) = match ty {
                    Type::Primitive { name } => name.layout(),
                    Type::Pointer { .. } => POINTER_LAYOUT,
                    _ => return None,
                };
                let value = if size { bytes } else { align };
                Some((ConstantValue::Int(value.into()), Type::Primitive { name: SIZE_TYPE }))
            }
            "(" => {
                let save = self.pos;
                self.pos += 1;
                if let Some(cast) = self.cast_type() {
                    if self.eat(")") {
                        let (v, _) = self.unary()?;
                        return Some((convert(v, &cast)?, cast));
                    }
                }
                self.pos = save + 1;
                let inner = self.expr()?;
                self.eat(")").then_some(inner)
            }
            _ => self.primary(),
        }
    }

    /// A type name inside a cast: a typedef or builtin words, then any number of `*`.
    fn cast_type(&mut self) -> Option<Type> {
        let start = self.pos;
        let mut words = Vec::new();
        while let Some(t) = self.peek() {
            if matches!(
                t,
                "unsigned" | "signed" | "int" | "long" | "short" | "char" | "void" | "float" | "double" | "const"
            ) {
                words.push(t.to_string());
                self.pos += 1;
            } else {
                break;
            }
        }
        let mut ty = if words.is_empty() {
            let name = self.peek()?.to_string();
            if !self.typedefs.contains(&name) {
                self.pos = start;
                return None;
            }
            self.pos += 1;
            Type::Typedef { name }
        } else {
            words.retain(|w| w != "const");
            match builtin(&words) {
                Some(ty) => ty,
                None => {
                    self.pos = start;
                    return None;
                }
            }
        };
        while self.eat("*") {
            ty = Type::Pointer { pointee: Box::new(ty), pointee_const: false };
        }
        Some(ty)
    }

    fn primary(&mut self) -> Option<Value> {
        let token = self.peek()?.to_string();
        self.pos += 1;
        if let Some(value) = self.known.get(&token) {
            return Some(value.clone());
        }
        if token.starts_with('"') {
            let text = token.trim_matches('"').to_string();
            let ty =
                Type::Pointer { pointee: Box::new(Type::Primitive { name: Primitive::Char }), pointee_const: true };
            return Some((ConstantValue::Str(text), ty));
        }
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            return literal(&token);
        }
        None
    }
}

/// `size_t` and pointers on the LP64 targets whose layouts [`Primitive::layout`] gives.
const SIZE_TYPE: Primitive = Primitive::UnsignedLong;
const POINTER_LAYOUT: (u64, u64) = (8, 8);

/// The value of an integer constant expression written as `tokens` (macros already expanded):
/// literals, arithmetic, casts to builtin types and `sizeof`/`_Alignof` of builtin types, as
/// in `2 * sizeof(long int)`. `None` for anything else or a negative value.
pub fn integer_expression(tokens: &[String]) -> Option<u64> {
    let (known, typedefs) = (BTreeMap::new(), BTreeSet::new());
    let mut parser = Parser { tokens, pos: 0, known: &known, typedefs: &typedefs };
    let (value, _) = parser.expr()?;
    match value {
        ConstantValue::Int(value) if parser.pos == tokens.len() => u64::try_from(value).ok(),
        _ => None,
    }
}

fn builtin(words: &[String]) -> Option<Type> {
    let joined = words.join(" ");
    let p = match joined.as_str() {
        "void" => return Some(Type::Void),
        "char" => Primitive::Char,
        "signed char" => Primitive::SignedChar,
        "unsigned char" => Primitive::UnsignedChar,
        "short" | "short int" | "signed short" => Primitive::Short,
        "unsigned short" | "unsigned short int" => Primitive::UnsignedShort,
        "int" | "signed" | "signed int" => Primitive::Int,
        "unsigned" | "unsigned int" => Primitive::UnsignedInt,
        "long" | "long int" | "signed long" => Primitive::Long,
        "unsigned long" | "unsigned long int" => Primitive::UnsignedLong,
        "long long" | "long long int" | "signed long long" => Primitive::LongLong,
        "unsigned long long" | "unsigned long long int" => Primitive::UnsignedLongLong,
        "float" => Primitive::Float,
        "double" => Primitive::Double,
        _ => return None,
    };
    Some(Type::Primitive { name: p })
}

/// An integer or floating literal with C's typing rules for suffixes and size.
fn literal(token: &str) -> Option<Value> {
    let lower = token.to_ascii_lowercase();
    let is_hex = lower.starts_with("0x");
    if !is_hex && (lower.contains('.') || lower.contains('e')) {
        let (digits, p) = match lower.strip_suffix('f') {
            Some(d) => (d, Primitive::Float),
            None => (lower.trim_end_matches('l'), Primitive::Double),
        };
        let v: f64 = digits.parse().ok()?;
        return Some((ConstantValue::Float(v), Type::Primitive { name: p }));
    }
    let value = parse_integer(token)? as i128;
    let suffix: String = lower.chars().rev().take_while(|c| *c == 'u' || *c == 'l').collect();
    let unsigned = suffix.contains('u');
    let longs = suffix.matches('l').count();
    let candidates: &[Primitive] = match (unsigned, longs, is_hex || token.starts_with('0') && token.len() > 1) {
        (false, 0, false) => &[Primitive::Int, Primitive::Long],
        (false, 0, true) => &[Primitive::Int, Primitive::UnsignedInt, Primitive::Long, Primitive::UnsignedLong],
        (true, 0, _) => &[Primitive::UnsignedInt, Primitive::UnsignedLong],
        (false, 1, false) => &[Primitive::Long],
        (false, 1, true) => &[Primitive::Long, Primitive::UnsignedLong],
        (true, 1, _) => &[Primitive::UnsignedLong],
        (false, _, false) => &[Primitive::LongLong],
        (false, _, true) => &[Primitive::LongLong, Primitive::UnsignedLongLong],
        (true, _, _) => &[Primitive::UnsignedLongLong],
    };
    let p = candidates.iter().copied().find(|p| fits(value, *p))?;
    Some((ConstantValue::Int(value), Type::Primitive { name: p }))
}

fn fits(value: i128, p: Primitive) -> bool {
    let bits = p.layout().0 * 8;
    if p.is_signed_integer() {
        value >= -(1i128 << (bits - 1)) && value < (1i128 << (bits - 1))
    } else {
        value >= 0 && value < (1i128 << bits)
    }
}

/// Wraps an integer to the width and signedness of a primitive type, as C arithmetic does.
fn wrap(value: i128, ty: &Type) -> i128 {
    let Type::Primitive { name } = ty else { return value };
    if name.is_float() {
        return value;
    }
    let bits = name.layout().0 * 8;
    let mask = (1i128 << bits) - 1;
    let v = value & mask;
    if name.is_signed_integer() && v >= (1i128 << (bits - 1)) {
        v - (1i128 << bits)
    } else {
        v
    }
}

fn convert(value: ConstantValue, to: &Type) -> Option<ConstantValue> {
    Some(match (value, to) {
        (ConstantValue::Int(i), Type::Primitive { name }) if name.is_float() => ConstantValue::Float(i as f64),
        (ConstantValue::Int(i), ty) => ConstantValue::Int(wrap(i, ty)),
        (ConstantValue::Float(f), Type::Primitive { name }) if !name.is_float() => ConstantValue::Int(f as i128),
        (v, _) => v,
    })
}

fn apply(op: &str, (a, ta): Value, (b, tb): Value) -> Option<Value> {
    let ty = wider(&ta, &tb);
    match (a, b) {
        (ConstantValue::Int(x), ConstantValue::Int(y)) => {
            let v = match op {
                "|" => x | y,
                "^" => x ^ y,
                "&" => x & y,
                "<<" => x.checked_shl(u32::try_from(y).ok()?)?,
                ">>" => x.checked_shr(u32::try_from(y).ok()?)?,
                "+" => x.checked_add(y)?,
                "-" => x.checked_sub(y)?,
                "*" => x.checked_mul(y)?,
                "/" => x.checked_div(y)?,
                "%" => x.checked_rem(y)?,
                _ => return None,
            };
            Some((ConstantValue::Int(wrap(v, &ty)), ty))
        }
        (ConstantValue::Float(x), ConstantValue::Float(y)) => {
            let v = match op {
                "+" => x + y,
                "-" => x - y,
                "*" => x * y,
                "/" => x / y,
                _ => return None,
            };
            Some((ConstantValue::Float(v), ty))
        }
        _ => None,
    }
}

/// The usual arithmetic conversions, enough for header constants.
fn wider(a: &Type, b: &Type) -> Type {
    match (a, b) {
        (Type::Primitive { name: x }, Type::Primitive { name: y }) => {
            let rank = |p: &Primitive| (p.is_float(), p.layout().0, !p.is_signed_integer());
            if rank(x) >= rank(y) {
                a.clone()
            } else {
                b.clone()
            }
        }
        // An enumerator in arithmetic is promoted: the result is an integer, not the enum.
        (Type::Enum { .. }, Type::Enum { .. }) => Type::Primitive { name: Primitive::Int },
        (Type::Enum { .. }, other) | (other, Type::Enum { .. }) => {
            wider(other, &Type::Primitive { name: Primitive::Int })
        }
        (Type::Primitive { .. }, _) => b.clone(),
        _ => a.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_macro_naming_a_typedef_is_another_name_for_it() {
        let typedef = |name: &str, size| Typedef {
            name: name.into(),
            ty: Type::Primitive { name: Primitive::Int },
            size,
            align: size,
            explicit_alignments: Vec::new(),
            system: false,
            doc: None,
            header: None,
        };
        let typedefs = [typedef("fooAttrID", 4), typedef("fooValue", 8)];
        let define = |name: &str, body: &[&str]| MacroDef {
            name: name.into(),
            file: 0,
            header: Some("foo_types.h".into()),
            offset: 0,
            body: body.iter().map(|t| t.to_string()).collect(),
            doc: None,
        };
        let macros = [
            define("barAttrID", &["fooAttrID"]),
            define("barValue", &["fooValue"]),
            define("fooValue", &["fooAttrID"]),
            define("_hidden", &["fooValue"]),
            define("barCount", &["4"]),
            define("barCall", &["fooCall"]),
            define("barPair", &["fooAttrID", "*"]),
        ];
        let aliases = type_aliases(&macros, &typedefs);
        let names: Vec<(&str, u64)> = aliases.iter().map(|t| (t.name.as_str(), t.size)).collect();
        assert_eq!(names, [("barAttrID", 4), ("barValue", 8)]);
        assert_eq!(aliases[0].ty, Type::Typedef { name: "fooAttrID".into() });
        assert_eq!(aliases[0].header.as_deref(), Some("foo_types.h"));
    }

    fn eval(body: &str, typedefs: &[&str]) -> Option<Constant> {
        let macros =
            vec![MacroDef { name: "X".into(), file: 0, header: None, offset: 0, body: tokenize(body), doc: None }];
        let names = typedefs.iter().map(|s| s.to_string()).collect();
        constants(&macros, &names, &[colour()]).pop()
    }

    fn colour() -> Enum {
        let constant = |name: &str, value| ctkgen_ir::EnumConstant { name: name.into(), value, doc: None };
        Enum {
            name: "colour_enum".into(),
            typedef_names: vec!["colour".into()],
            underlying: Primitive::UnsignedInt,
            constants: vec![constant("COLOUR_RED", 1), constant("COLOUR_BLUE", 4)],
            doc: None,
            header: None,
        }
    }

    fn tokenize(text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut current = String::new();
        for c in text.chars() {
            if c.is_alphanumeric() || c == '_' || c == '.' {
                current.push(c);
            } else {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                // Shifts are one token, as clang gives them.
                if (c == '<' || c == '>') && out.last().is_some_and(|t| t == &c.to_string()) {
                    out.last_mut().unwrap().push(c);
                } else if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            }
        }
        if !current.is_empty() {
            out.push(current);
        }
        out
    }

    #[test]
    fn casts_keep_their_type() {
        let c = eval("((FooDevice)-1)", &["FooDevice"]).unwrap();
        assert_eq!(c.value, ConstantValue::Int(-1));
        assert_eq!(c.ty, Type::Typedef { name: "FooDevice".into() });
        let c = eval("((void*)0x01)", &[]).unwrap();
        assert_eq!(c.value, ConstantValue::Int(1));
        assert!(matches!(c.ty, Type::Pointer { .. }));
    }

    #[test]
    fn literal_typing_follows_c() {
        assert_eq!(eval("0xFFFFFFFF", &[]).unwrap().ty, Type::Primitive { name: Primitive::UnsignedInt });
        assert_eq!(eval("2147483648", &[]).unwrap().ty, Type::Primitive { name: Primitive::Long });
        assert_eq!(eval("1ULL << 63", &[]).unwrap().value, ConstantValue::Int(1i128 << 63));
        assert_eq!(eval("~0U", &[]).unwrap().value, ConstantValue::Int(0xFFFF_FFFF));
        assert!(eval("foo(1)", &[]).is_none());
    }

    #[test]
    fn an_enumerator_alias_has_the_enumerators_value_and_enum() {
        let c = eval("COLOUR_BLUE", &[]).unwrap();
        assert_eq!(c.value, ConstantValue::Int(4));
        assert_eq!(c.ty, Type::Enum { name: "colour_enum".into() });
        // Arithmetic promotes it to an integer.
        let c = eval("(COLOUR_RED | COLOUR_BLUE)", &[]).unwrap();
        assert_eq!((c.value, c.ty), (ConstantValue::Int(5), Type::Primitive { name: Primitive::Int }));
        assert!(eval("COLOUR_GREEN", &[]).is_none());
    }

    #[test]
    fn non_finite_floats_are_left_out() {
        assert_eq!(eval("(1.0/2.0)", &[]).unwrap().value, ConstantValue::Float(0.5));
        assert!(eval("(1.0/0.0)", &[]).is_none());
        assert!(eval("(0.0/0.0)", &[]).is_none());
        assert!(eval("1e400", &[]).is_none());
    }
}

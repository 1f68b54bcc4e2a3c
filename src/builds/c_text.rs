//! C text read as the C translation phases see it, not line by line: lines joined where they
//! end in a backslash, comments replaced by a space, then tokens (identifiers, string
//! literals, punctuation). Declarations are found as token sequences, so a newline, spaces or
//! a comment between `crypto_kem_keypair` and its `(` change nothing, as they change nothing
//! for a C compiler; preprocessor directives are the logical lines that begin with `#`
//! (`#  define`, `# include` included).
//!
//! Macros are not expanded: what is read is what the package's headers spell out, which is
//! what the shim kembench compiles beside a package calls through them.

/// One token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// An identifier or keyword.
    Ident(String),
    /// A string literal's contents, escapes left as written.
    Str(String),
    /// A punctuation character.
    Punct(char),
    /// A number or a character literal, as written.
    Other(String),
}

/// A C file's tokens: the code outside directives, and each directive's tokens after its `#`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CText {
    /// The tokens of everything that is not a preprocessor directive, in order.
    pub code: Vec<Token>,
    /// Each directive's tokens (`define`, `NAME`, ...), in order.
    pub directives: Vec<Vec<Token>>,
}

/// Reads C text into tokens (see the module's documentation).
pub fn read(text: &str) -> CText {
    let spliced = text.replace("\\\r\n", "").replace("\\\n", "");
    let chars: Vec<char> = spliced.chars().collect();
    let mut out = CText::default();
    // The directive being read, if the current logical line is one.
    let mut directive: Option<Vec<Token>> = None;
    let mut line_start = true;
    let mut i = 0;
    let push = |out: &mut CText, directive: &mut Option<Vec<Token>>, t: Token| match directive {
        Some(d) => d.push(t),
        None => out.code.push(t),
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            if let Some(d) = directive.take() {
                out.directives.push(d);
            }
            line_start = true;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            // A comment is one space, however many lines it spans.
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '#' && line_start && directive.is_none() {
            directive = Some(Vec::new());
            line_start = false;
            i += 1;
        } else if c == '"' || c == '\'' {
            let mut s = String::new();
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    s.push(chars[i]);
                    i += 1;
                }
                s.push(chars[i]);
                i += 1;
            }
            i += 1;
            let t = if c == '"' {
                Token::Str(s)
            } else {
                Token::Other(format!("'{s}'"))
            };
            push(&mut out, &mut directive, t);
            line_start = false;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            // A number's suffix or exponent stays in it (`1.5e3`, `32u`).
            while c.is_ascii_digit()
                && i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let t = if c.is_ascii_digit() {
                Token::Other(word)
            } else {
                Token::Ident(word)
            };
            push(&mut out, &mut directive, t);
            line_start = false;
        } else {
            push(&mut out, &mut directive, Token::Punct(c));
            line_start = false;
            i += 1;
        }
    }
    if let Some(d) = directive.take() {
        out.directives.push(d);
    }
    out
}

impl CText {
    /// The prefix of the first function declared (or defined, or called) outside directives
    /// whose name is `prefix` + `name`, the prefix made of identifier characters: `name`
    /// followed by `(` as tokens (`PQCLEAN_X_CLEAN_` for `PQCLEAN_X_CLEAN_crypto_kem_keypair
    /// (` on two lines).
    pub fn function_prefix(&self, name: &str) -> Option<String> {
        self.code.windows(2).find_map(|w| match w {
            [Token::Ident(id), Token::Punct('(')] => id.strip_suffix(name).map(str::to_string),
            _ => None,
        })
    }

    /// Whether a function called exactly `name` is declared, defined or called outside
    /// directives (`name (` as tokens).
    pub fn has_function(&self, name: &str) -> bool {
        self.code
            .windows(2)
            .any(|w| matches!(w, [Token::Ident(id), Token::Punct('(')] if id == name))
    }

    /// Whether the text defines `main`: `main (` after a type name (`int main(`, `int\nmain
    /// (void)`).
    pub fn defines_main(&self) -> bool {
        self.code.windows(3).any(|w| {
            matches!(w, [Token::Ident(t), Token::Ident(m), Token::Punct('(')]
                if m == "main" && t != "return")
        })
    }

    /// The string a `#define` whose macro name ends in `suffix` gives (`#define
    /// PQCLEAN_X_CRYPTO_ALGNAME "X"`), when its value is one string literal.
    pub fn defined_string(&self, suffix: &str) -> Option<String> {
        self.directives.iter().find_map(|d| match &d[..] {
            [Token::Ident(def), Token::Ident(name), Token::Str(s)]
                if def == "define" && name.ends_with(suffix) =>
            {
                Some(s.clone())
            }
            _ => None,
        })
    }

    /// The number a `#define` whose macro name ends in `suffix` gives (`#define
    /// PQCLEAN_X_CRYPTO_PUBLICKEYBYTES 1184`), when its value is one decimal number.
    pub fn defined_number(&self, suffix: &str) -> Option<usize> {
        self.directives.iter().find_map(|d| match &d[..] {
            [Token::Ident(def), Token::Ident(name), Token::Other(n)]
                if def == "define" && name.ends_with(suffix) =>
            {
                n.parse().ok()
            }
            _ => None,
        })
    }

    /// The files named by `#include "..."`, in order (each once).
    pub fn quoted_includes(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        for d in &self.directives {
            if let [Token::Ident(inc), Token::Str(name), ..] = &d[..] {
                if inc == "include" && !v.contains(name) {
                    v.push(name.clone());
                }
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_found_whatever_lies_between_their_tokens() {
        // PQClean's Classic McEliece api.h puts the parenthesis on the next line.
        let mceliece = "int PQCLEAN_MCELIECE348864_CLEAN_crypto_kem_enc(\n    uint8_t *c\n);\n\
                        int PQCLEAN_MCELIECE348864_CLEAN_crypto_kem_keypair\n(\n    uint8_t *pk,\n    uint8_t *sk\n);\n";
        assert_eq!(
            read(mceliece)
                .function_prefix("crypto_kem_keypair")
                .as_deref(),
            Some("PQCLEAN_MCELIECE348864_CLEAN_")
        );
        for text in [
            "int crypto_kem_keypair /* pk, sk */ (unsigned char *pk, unsigned char *sk);",
            "int\ncrypto_kem_keypair\t\t(unsigned char *pk,\n unsigned char *sk);",
            "int crypto_kem_\\\nkeypair(unsigned char *pk, unsigned char *sk);",
        ] {
            assert_eq!(
                read(text).function_prefix("crypto_kem_keypair").as_deref(),
                Some(""),
                "{text}"
            );
        }
        // Not a declaration: in a comment, a string, a directive, or a longer name.
        for text in [
            "/* int crypto_kem_keypair(unsigned char *pk); */",
            "// int crypto_kem_keypair(\n",
            "const char *s = \"crypto_kem_keypair(\";",
            "#define CALL crypto_kem_keypair(pk, sk)",
            "int crypto_kem_keypair_derand(uint8_t *pk, uint8_t *sk, const uint8_t *coins);",
        ] {
            assert_eq!(
                read(text).function_prefix("crypto_kem_keypair"),
                None,
                "{text}"
            );
        }
        let kem = read("int X_crypto_kem_keypair_derand\n(uint8_t *pk);");
        assert!(kem.has_function("X_crypto_kem_keypair_derand"));
        assert!(!kem.has_function("X_crypto_kem_keypair"));
    }

    #[test]
    fn directives_defines_includes_and_main() {
        let t = read(
            "#ifndef API_H\n#  define PQCLEAN_X_CRYPTO_ALGNAME /* name */ \"Classic McEliece 348864\"\n\
             # include \"compat.h\"\n#include <stdint.h>\n#include \"params.h\" // sizes\n\
             #include \"compat.h\"\n#define LONG \\\n  1\nint\nmain (void) { return 0; }\n",
        );
        assert_eq!(
            t.defined_string("CRYPTO_ALGNAME").as_deref(),
            Some("Classic McEliece 348864")
        );
        assert_eq!(t.quoted_includes(), ["compat.h", "params.h"]);
        assert!(t.defines_main());
        assert!(!read("int x = main(1);").defines_main());
        // A block comment spanning lines inside a directive continues it.
        let t = read("#define CRYPTO_ALGNAME /* a\n b */ \"K\"\nint f(void);");
        assert_eq!(t.defined_string("CRYPTO_ALGNAME").as_deref(), Some("K"));
        assert!(t.has_function("f"));
        let t = read("#define X_CRYPTO_PUBLICKEYBYTES  1184 // pk\n#define X_CRYPTO_BYTES (32)\n");
        assert_eq!(t.defined_number("CRYPTO_PUBLICKEYBYTES"), Some(1184));
        assert_eq!(
            t.defined_number("CRYPTO_BYTES"),
            None,
            "an expression is not read"
        );
    }
}

//! `name:key=value,key=value` specifications, the one syntax for every configurable thing on the command
//! line (`one-rand:files=2000`, `hdd:nocache`, `deadline:read_expire=500ms`, `linux:512KiB`).
//!
//! A [`Spec`] is parsed once; the component that owns the name takes its parameters with typed getters and
//! then calls [`Spec::finish`], which rejects any parameter nobody took — a misspelt knob is an error, never
//! silently ignored.

use crate::error::CoreError;
use crate::units::{parse_bytes, parse_duration_ns};
use std::cell::RefCell;

#[derive(Debug)]
pub struct Spec {
    pub name: String,
    /// Bare words after the colon that are not `key=value` (flags like `nocache`, or a positional value
    /// like the `512KiB` of `linux:512KiB`).
    words: RefCell<Vec<String>>,
    params: RefCell<Vec<(String, String)>>,
    text: String,
}

impl Spec {
    pub fn parse(text: &str) -> Result<Spec, CoreError> {
        let t = text.trim();
        let (name, rest) = match t.split_once(':') {
            Some((n, r)) => (n.trim(), r),
            None => (t, ""),
        };
        if name.is_empty() {
            return Err(bad(text, "missing name before `:`".into()));
        }
        let mut words = Vec::new();
        let mut params = Vec::new();
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => {
                    let key = k.trim();
                    refuse_repeat(params.iter().map(|(seen, _): &(String, String)| seen.as_str()), key)
                        .map_err(|why| bad(text, why))?;
                    params.push((key.to_string(), v.trim().to_string()))
                }
                Some(_) => return Err(bad(text, format!("`{part}` has no key before `=`"))),
                None => words.push(part.to_string()),
            }
        }
        Ok(Spec {
            name: name.to_ascii_lowercase(),
            words: RefCell::new(words),
            params: RefCell::new(params),
            text: t.to_string(),
        })
    }

    /// The whole spec as written, for messages.
    pub fn text(&self) -> &str {
        &self.text
    }

    fn take(&self, key: &str) -> Option<String> {
        let mut params = self.params.borrow_mut();
        let i = params.iter().position(|(k, _)| k.eq_ignore_ascii_case(key))?;
        Some(params.remove(i).1)
    }

    /// Take the bare word `flag` if present.
    pub fn flag(&self, flag: &str) -> bool {
        let mut words = self.words.borrow_mut();
        match words.iter().position(|w| w.eq_ignore_ascii_case(flag)) {
            Some(i) => {
                words.remove(i);
                true
            }
            None => false,
        }
    }

    /// Take the first remaining bare word (a positional value).
    pub fn positional(&self) -> Option<String> {
        let mut words = self.words.borrow_mut();
        (!words.is_empty()).then(|| words.remove(0))
    }

    pub fn u64(&self, key: &str, default: u64) -> Result<u64, CoreError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => {
                v.parse().map_err(|_| bad(&self.text, format!("{key}=`{v}`: expected a whole number")))
            }
        }
    }

    pub fn f64(&self, key: &str, default: f64) -> Result<f64, CoreError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(bad(&self.text, format!("{key}=`{v}`: expected a number"))),
            },
        }
    }

    pub fn bool(&self, key: &str, default: bool) -> Result<bool, CoreError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(true),
                "false" | "no" | "off" | "0" => Ok(false),
                _ => Err(bad(&self.text, format!("{key}=`{v}`: expected true or false"))),
            },
        }
    }

    /// A size in bytes (`64KiB`, `4MiB`, `4096`).
    pub fn bytes(&self, key: &str, default: u64) -> Result<u64, CoreError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => parse_bytes(&v).map_err(|e| bad(&self.text, format!("{key}: {e}"))),
        }
    }

    /// A duration in nanoseconds (`500ms`, `6ms`).
    pub fn duration_ns(&self, key: &str, default: u64) -> Result<u64, CoreError> {
        match self.take(key) {
            None => Ok(default),
            Some(v) => parse_duration_ns(&v).map_err(|e| bad(&self.text, format!("{key}: {e}"))),
        }
    }

    pub fn string(&self, key: &str) -> Option<String> {
        self.take(key)
    }

    /// Every parameter must have been taken; `known` lists the accepted keys for the message.
    pub fn finish(&self, known: &[&str]) -> Result<(), CoreError> {
        let params = self.params.borrow();
        let words = self.words.borrow();
        let mut left: Vec<String> = params.iter().map(|(k, _)| k.clone()).collect();
        left.extend(words.iter().cloned());
        if left.is_empty() {
            return Ok(());
        }
        // A bare word that is a known key was meant as one: it lacks its value.
        if let Some(word) = words.iter().find(|w| known.iter().any(|k| k.eq_ignore_ascii_case(w))) {
            return Err(bad(&self.text, needs_value(word)));
        }
        let accepted = if known.is_empty() { "none".to_string() } else { known.join(", ") };
        Err(bad(&self.text, format!("unknown parameter(s) {} (accepted: {accepted})", left.join(", "))))
    }
}

/// Refuses `key` when `seen` already holds it (ASCII case aside): the last one would win in silence, so a
/// spec that says two things would do one of them. Public so that the other `key=value` parsers (the trace
/// crate's `synth:` and `csv:` specs) refuse it in the same words.
pub fn refuse_repeat<'a>(mut seen: impl Iterator<Item = &'a str>, key: &str) -> Result<(), String> {
    if seen.any(|s| s.eq_ignore_ascii_case(key)) {
        return Err(format!("`{key}` is given twice"));
    }
    Ok(())
}

/// What a known key written without its value is told: it lacks the value, it is not unknown. Shared with
/// the other `key=value` parsers, as [`refuse_repeat`] is.
pub fn needs_value(key: &str) -> String {
    format!("`{key}` needs a value ({key}=…)")
}

fn bad(text: &str, why: String) -> CoreError {
    CoreError::InvalidParameter { what: "specification", why: format!("`{}`: {why}", text.trim()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_parameters_and_flags() {
        let s = Spec::parse("One-Rand:files=2000,block=64KiB,nocache,think=2ms").unwrap();
        assert_eq!(s.name, "one-rand");
        assert_eq!(s.u64("files", 6000).unwrap(), 2000);
        assert_eq!(s.bytes("block", 0).unwrap(), 65536);
        assert_eq!(s.duration_ns("think", 0).unwrap(), 2_000_000);
        assert_eq!(s.u64("absent", 7).unwrap(), 7);
        assert!(s.flag("nocache"));
        s.finish(&["files", "block", "think"]).unwrap();
    }

    #[test]
    fn leftovers_and_bad_values_are_errors() {
        let s = Spec::parse("deadline:read_expir=5ms").unwrap();
        let e = s.finish(&["read_expire"]).unwrap_err().to_string();
        assert!(e.contains("unknown parameter(s) read_expir") && e.contains("accepted: read_expire"), "{e}");
        let s = Spec::parse("x:files=lots").unwrap();
        assert!(s.u64("files", 1).unwrap_err().to_string().contains("files=`lots`: expected a whole number"));
        assert_eq!(Spec::parse("linux:512KiB").unwrap().positional().as_deref(), Some("512KiB"));
        assert!(Spec::parse(":x").is_err());
    }

    /// A key given twice is refused (the last used to win in silence), and a known key without its value is
    /// named as such, not as unknown.
    #[test]
    fn a_repeated_key_and_a_key_without_value_are_named() {
        let e = Spec::parse("one-rand:files=10,FILES=20").unwrap_err().to_string();
        assert!(e.contains("`FILES` is given twice"), "{e}");
        let s = Spec::parse("one-rand:files").unwrap();
        let e = s.finish(&["files", "file_size"]).unwrap_err().to_string();
        assert!(e.contains("`files` needs a value (files=…)"), "{e}");
    }
}

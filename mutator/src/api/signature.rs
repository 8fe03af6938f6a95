//! Demangled signatures as the table reads them: an Itanium symbol demangled the way
//! `llvm-cxxfilt` prints it, split into class and member, and a class's template
//! argument.

/// Splits `ns::cls<T>::member(params)` into the class and `member(params)`, honouring
/// `::` inside template arguments.
pub(super) fn split_member(signature: &str) -> Option<(&str, &str)> {
    let open = signature.find('(')?;
    let head = &signature[..open];
    let mut depth = 0i32;
    let mut split = None;
    let bytes = head.as_bytes();
    for i in 0..bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && i + 1 < bytes.len() && bytes[i + 1] == b':' => split = Some(i),
            _ => {}
        }
    }
    let at = split?;
    Some((&signature[..at], &signature[at + 2..]))
}

/// `sc_core::sc_fifo<int>` → `int`.
pub(super) fn template_argument(class: &str) -> Option<&str> {
    let open = class.find('<')?;
    class[open + 1..].strip_suffix('>').map(str::trim_end)
}

/// Demangles an Itanium C++ symbol the way `llvm-cxxfilt` prints it; C names pass
/// through unchanged. Only a mangled name (`_Z…`) is demangled: the demangler reads a
/// bare `s`, `w`, `i` or `f` as a type code (`short`, `wchar_t`, …), which a C function
/// of that name is not.
pub(crate) fn demangle(symbol: &str) -> String {
    if !symbol.starts_with("_Z") {
        return symbol.to_string();
    }
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| symbol.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_mangled_names_are_demangled() {
        for c in ["s", "w", "i", "f", "v", "main"] {
            assert_eq!(super::demangle(c), c);
        }
        assert_eq!(super::demangle("_Z5touchi"), "touch(int)");
    }
}

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
/// through unchanged.
pub fn demangle(symbol: &str) -> String {
    cpp_demangle::Symbol::new(symbol)
        .ok()
        .and_then(|s| s.demangle(&cpp_demangle::DemangleOptions::default()).ok())
        .unwrap_or_else(|| symbol.to_string())
}

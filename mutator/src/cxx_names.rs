//! C++ names as the demangler prints them (`sc_core::sc_fifo<int>::write(int const&)`):
//! the small text operations devirtualization and promotion both read them with.

/// `sc_core::sc_fifo<std::pair<int, int> >` → `std::pair<int,int>` (spaces dropped, so
/// the demangler's spellings compare equal); `None` for a name without arguments.
pub fn template_arguments(name: &str) -> Option<String> {
    let open = name.find('<')?;
    let close = name.rfind('>')?;
    (open < close).then(|| compact(&name[open + 1..close]))
}

/// `std::pair<int, int>` → `std::pair<int,int>`: spellings compared without spaces.
pub fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `sc_core::sc_fifo<int>` → `sc_core::sc_fifo`.
pub fn without_template_arguments(name: &str) -> String {
    let mut depth = 0u32;
    name.chars()
        .filter(|&c| match c {
            '<' => {
                depth += 1;
                false
            }
            '>' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// `bus->lock()` → `lock`: the name before the last argument list.
pub fn member_of(call: &str) -> &str {
    let mut depth = 0i32;
    let mut open = call.len();
    for (i, c) in call.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    open = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let callee = &call[..open];
    callee
        .rsplit(['.', '>', ':'])
        .next()
        .unwrap_or(callee)
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_arguments_compare_without_spaces() {
        assert_eq!(
            template_arguments("sc_core::sc_fifo_out_if<std::pair<int, int> >").as_deref(),
            Some("std::pair<int,int>")
        );
        assert_eq!(template_arguments("sc_core::sc_mutex_if"), None);
    }
}

//! Generated tests as Test-Comp test cases (the exchange format of the Test-Comp
//! competition, <https://gitlab.com/sosy-lab/software/test-format>): `tests/<name>.xml`
//! per kept test, one `<input>` per `__VERIFIER_nondet_*` value in call order, and
//! `tests/metadata.xml` describing the program. A Test-Comp harness (e.g. TestCov)
//! can replay them on the unmodified program.
//!
//! The inputs are what the confirming run consumed (the runtime's input log), so a
//! value the program read past the generated list appears as the 0 it got. argv and
//! named inputs have no Test-Comp equivalent: a test that sets them says so in an XML
//! comment (tests.json is the complete test).

use crate::suite::Confirmed;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

const TESTCASE_DOCTYPE: &str = r#"testcase PUBLIC "+//IDN sosy-lab.org//DTD test-format testcase 1.1//EN" "https://sosy-lab.org/test-format/testcase-1.1.dtd""#;
const METADATA_DOCTYPE: &str = r#"test-metadata PUBLIC "+//IDN sosy-lab.org//DTD test-format test-metadata 1.1//EN" "https://sosy-lab.org/test-format/test-metadata-1.1.dtd""#;
/// The standard Test-Comp coverage property closest to "reach every synchronization
/// site" (a site is reached by covering the branches that lead to it).
const SPECIFICATION: &str = "COVER( init(main()), FQL(COVER EDGES(@DECISIONEDGE)) )";

/// What the metadata says about the program.
pub(crate) struct Program<'a> {
    /// The program's source file (its SHA-256 is the `programhash`).
    pub(crate) file: &'a Path,
    /// `main` or `sc_main`.
    pub(crate) entry: &'a str,
}

/// The C type of a `__VERIFIER_nondet_<suffix>` function's result.
pub(crate) fn c_type(suffix: &str) -> String {
    match suffix {
        "bool" => "_Bool",
        "uchar" | "u8" => "unsigned char",
        "ushort" | "u16" => "unsigned short",
        "uint" | "unsigned" | "u32" => "unsigned int",
        "ulong" | "size_t" | "sector_t" => "unsigned long",
        "longlong" => "long long",
        "ulonglong" => "unsigned long long",
        "loff_t" => "long",
        other => other,
    }
    .to_string()
}

/// One test case as Test-Comp XML.
pub(crate) fn testcase(test: &Confirmed) -> std::io::Result<Vec<u8>> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        Some("no"),
    )))?;
    w.write_event(Event::DocType(BytesText::from_escaped(TESTCASE_DOCTYPE)))?;
    // Typed values from the confirming run's log; without a log (it could not be
    // written), the generated list, untyped.
    let logged: Vec<(Option<String>, String)> = test
        .consumed
        .iter()
        .filter(|(kind, _, _)| kind == "nondet")
        .map(|(_, ty, v)| (Some(c_type(ty)), v.clone()))
        .collect();
    let inputs = if logged.is_empty() {
        test.nondet.iter().map(|v| (None, v.to_string())).collect()
    } else {
        logged
    };
    w.create_element("testcase").write_inner_content(|w| {
        if !test.args.is_empty() || !test.inputs.is_empty() {
            let note = " syncmut: this test also sets program arguments or named inputs, which Test-Comp cannot express; tests.json holds the whole test ";
            w.write_event(Event::Comment(BytesText::new(note)))?;
        }
        for (ty, value) in &inputs {
            let mut e = w.create_element("input");
            if let Some(ty) = ty {
                e = e.with_attribute(("type", ty.as_str()));
            }
            e.write_text_content(BytesText::new(value))?;
        }
        Ok(())
    })?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// `metadata.xml` for the program.
pub(crate) fn metadata(program: &Program<'_>, creation_time: &str) -> std::io::Result<Vec<u8>> {
    let source = std::fs::read(program.file)?;
    let hash: String = Sha256::digest(&source)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let lang = if program.file.extension().is_some_and(|e| e == "c") {
        "C"
    } else {
        "C++"
    };
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    w.write_event(Event::Decl(BytesDecl::new(
        "1.0",
        Some("UTF-8"),
        Some("no"),
    )))?;
    w.write_event(Event::DocType(BytesText::from_escaped(METADATA_DOCTYPE)))?;
    let file = program.file.display().to_string();
    let producer = format!("syncmut {}", env!("CARGO_PKG_VERSION"));
    let fields: [(&str, &str); 8] = [
        ("sourcecodelang", lang),
        ("producer", &producer),
        ("specification", SPECIFICATION),
        ("programfile", &file),
        ("programhash", &hash),
        ("entryfunction", program.entry),
        ("architecture", "64bit"),
        ("creationtime", creation_time),
    ];
    w.create_element("test-metadata").write_inner_content(|w| {
        for (name, value) in fields {
            w.create_element(name)
                .write_text_content(BytesText::new(value))?;
        }
        Ok(())
    })?;
    let mut out = w.into_inner();
    out.push(b'\n');
    Ok(out)
}

/// Writes `dir/<name>.xml` for every test and `dir/metadata.xml` (each atomically);
/// returns the test case files.
pub(crate) fn write(
    tests: &[Confirmed],
    names: &[String],
    program: &Program<'_>,
    dir: &Path,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut files = Vec::new();
    for (test, name) in tests.iter().zip(names) {
        let path = dir.join(format!("{name}.xml"));
        syncmut_runtime::atomic::write(&path, &testcase(test)?)?;
        files.push(path);
    }
    syncmut_runtime::atomic::write(
        &dir.join("metadata.xml"),
        &metadata(program, &creation_time())?,
    )?;
    Ok(files)
}

/// `YYYY-MM-DDTHH:MM:SSZ`, now, or at `SOURCE_DATE_EPOCH` when set (the reproducible
/// builds convention, so the metadata can be byte-for-byte reproducible).
pub fn creation_time() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs() as i64)
                .unwrap_or(0)
        });
    utc(secs)
}

/// Unix time → ISO 8601 UTC (days-from-civil inverse, proleptic Gregorian).
fn utc(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_764_121_530), "2025-11-26T01:45:30Z");
    }
}

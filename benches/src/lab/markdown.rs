//! Markdown tables and the number formats of the report.

/// A Markdown table; `right` marks the columns to align right (numbers).
pub fn table(header: &[&str], right: &[bool], rows: &[Vec<String>]) -> String {
    let mut out = format!("| {} |\n|", header.join(" | "));
    for i in 0..header.len() {
        out.push_str(if right.get(i).copied().unwrap_or(false) {
            " ---: |"
        } else {
            " --- |"
        });
    }
    out.push('\n');
    for r in rows {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

/// A number with three significant digits (`1234` as `1,234`, `0.01234` as `0.0123`); `-` for
/// NaN, `inf` for infinities.
pub fn num(x: f64) -> String {
    if x.is_nan() {
        return "-".to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let a = x.abs();
    if a >= 1000.0 || (x.fract() == 0.0 && a < 1e15) {
        return thousands(x.round() as i64);
    }
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else if a == 0.0 {
        0
    } else {
        (2 - a.log10().floor() as i32).clamp(0, 9) as usize
    };
    format!("{x:.decimals$}")
}

/// An integer with thousands separators.
pub fn thousands(v: i64) -> String {
    let digits = v.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// A ratio with two decimals (`1.23x`).
pub fn ratio(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.2}")
    } else {
        num(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(num(1234.4), "1,234");
        assert_eq!(num(-1_234_567.0), "-1,234,567");
        assert_eq!(num(123.4), "123");
        assert_eq!(num(12.34), "12.3");
        assert_eq!(num(1.234), "1.23");
        assert_eq!(num(0.01234), "0.0123");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(21.0), "21");
        assert_eq!(num(f64::NAN), "-");
        assert_eq!(num(f64::INFINITY), "inf");
        assert_eq!(ratio(1.0 / 3.0), "0.33");
    }

    #[test]
    fn tables() {
        let t = table(&["a", "n"], &[false, true], &[vec!["x".into(), "1".into()]]);
        assert_eq!(t, "| a | n |\n| --- | ---: |\n| x | 1 |\n");
    }
}

//! `option name … type … default … min … max …` lines of the UCI handshake.

use serde::Serialize;

/// One option an engine declares.
#[derive(Serialize, Clone, Debug, PartialEq, utoipa::ToSchema)]
pub struct EngineOption {
    pub name: String,
    /// `check`, `spin`, `combo`, `button` or `string`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
}

/// Parses an `option` line; `None` for anything else or a line without a
/// name or type. Names may contain spaces (`Skill Level`); a string default
/// of `<empty>` is the empty string.
pub fn parse_option(line: &str) -> Option<EngineOption> {
    let rest = line.trim().strip_prefix("option ")?;
    let tokens: Vec<&str> = rest.split_whitespace().collect();
    const KEYS: [&str; 6] = ["name", "type", "default", "min", "max", "var"];
    let mut fields: Vec<(&str, Vec<&str>)> = Vec::new();
    for token in tokens {
        // `var` repeats (combo choices) and any key word may appear inside a
        // value only after its own key, so the first occurrence of each key
        // opens its field.
        if KEYS.contains(&token) && !fields.iter().any(|(k, _)| *k == token && token != "var") {
            fields.push((token, Vec::new()));
        } else if let Some((_, value)) = fields.last_mut() {
            value.push(token);
        } else {
            return None;
        }
    }
    let field = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.join(" "))
    };
    let name = field("name").filter(|n| !n.is_empty())?;
    let kind = field("type").filter(|t| !t.is_empty())?;
    let default = field("default").map(|d| if d == "<empty>" { String::new() } else { d });
    Some(EngineOption {
        name,
        kind,
        default,
        min: field("min").and_then(|m| m.parse().ok()),
        max: field("max").and_then(|m| m.parse().ok()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stockfish_options_parse() {
        let o = parse_option("option name Skill Level type spin default 20 min 0 max 20").unwrap();
        assert_eq!(
            o,
            EngineOption {
                name: "Skill Level".into(),
                kind: "spin".into(),
                default: Some("20".into()),
                min: Some(0),
                max: Some(20),
            }
        );
        let path = parse_option("option name SyzygyPath type string default <empty>").unwrap();
        assert_eq!(path.default.as_deref(), Some(""));
        let log = parse_option("option name Debug Log File type string default ").unwrap();
        assert_eq!(
            (log.name.as_str(), log.default.as_deref()),
            ("Debug Log File", Some(""))
        );
        let button = parse_option("option name Clear Hash type button").unwrap();
        assert_eq!((button.kind.as_str(), button.default), ("button", None));
        let combo =
            parse_option("option name Style type combo default Normal var Solid var Normal")
                .unwrap();
        assert_eq!(combo.default.as_deref(), Some("Normal"));
    }

    #[test]
    fn other_lines_are_not_options() {
        for line in [
            "uciok",
            "option",
            "option name X",
            "option type spin",
            "info depth 1",
        ] {
            assert_eq!(parse_option(line), None, "{line}");
        }
    }
}

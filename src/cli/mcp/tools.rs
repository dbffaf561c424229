//! The MCP tool table: the plugin's nine tools (dsh-memory-layers v1.2.1, same names, argument
//! names, defaults, limits and return fields) plus `mem_retrieve` and `mem_time_window`. Each
//! tool is a name, a description written for a model, an input and an output schema (inside
//! the subset of [`super::schema`]) and a handler that maps checked arguments onto the same
//! [`Memory`] methods the command line calls.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::schema::{array, boolean, integer, nullable, number, object, one_of_strings, string, with_default};
use crate::files::entry::Source;
use crate::layers::cold::WriteArgs;
use crate::query::retrieve::{RetrieveArgs, TimeRange};
use crate::{Error, Memory, Result};

/// One tool: its MCP name, description, schemas and handler.
#[derive(Debug)]
pub struct ToolDef {
    /// The tool name (`mem_…`, the plugin's names).
    pub name: &'static str,
    /// What the tool is for, written for the model that picks tools.
    pub description: &'static str,
    /// JSON Schema of the arguments (subset; `additionalProperties: false`).
    pub input: Value,
    /// JSON Schema of the result (`structuredContent`).
    pub output: Value,
    /// True when the tool changes no file other than the usage ledger.
    pub read_only: bool,
    handler: fn(&Memory, &Args) -> Result<Value>,
}

impl ToolDef {
    /// Checks `arguments` against the tool's argument names and runs it. Errors: an unknown
    /// argument or a value of the wrong type ([`Error::BadInput`] naming the field), or
    /// whatever the [`Memory`] method returns.
    pub fn call(&self, mem: &Memory, arguments: &Map<String, Value>) -> Result<Value> {
        let args = Args::new(self, arguments)?;
        (self.handler)(mem, &args)
    }
}

/// The arguments of one call, checked against the tool's input schema as they are read.
#[derive(Debug)]
pub struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    fn new(tool: &ToolDef, map: &'a Map<String, Value>) -> Result<Args<'a>> {
        let props = tool.input["properties"].as_object();
        for k in map.keys() {
            if !props.is_some_and(|p| p.contains_key(k)) {
                let known: Vec<&String> = props.into_iter().flat_map(|p| p.keys()).collect();
                let known = if known.is_empty() {
                    "it takes no arguments".to_string()
                } else {
                    format!("it takes {}", known.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
                };
                return Err(Error::bad(k.as_str(), format!("{} has no argument {k:?}; {known}", tool.name)));
            }
        }
        for r in tool.input["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if map.get(r).is_none_or(Value::is_null) {
                return Err(Error::bad(r, "is required"));
            }
        }
        Ok(Args { map })
    }

    fn get(&self, k: &str) -> Option<&Value> {
        self.map.get(k).filter(|v| !v.is_null())
    }

    fn str_opt(&self, k: &str) -> Result<Option<String>> {
        match self.get(k) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(Error::bad(k, format!("must be a string, got {v}"))),
        }
    }

    fn str_req(&self, k: &str) -> Result<String> {
        self.str_opt(k)?.ok_or_else(|| Error::bad(k, "is required"))
    }

    fn int_opt(&self, k: &str) -> Result<Option<i64>> {
        match self.get(k) {
            None => Ok(None),
            Some(v) => match (v.as_i64(), v.as_f64()) {
                (Some(i), _) => Ok(Some(i)),
                // 5.0 is the integer 5 (JSON does not tell them apart); 2.5 is not.
                (None, Some(f)) if f.fract() == 0.0 && f.abs() < 1e15 => Ok(Some(f as i64)),
                _ => Err(Error::bad(k, format!("must be an integer, got {v}"))),
            },
        }
    }

    fn bool_opt(&self, k: &str) -> Result<bool> {
        match self.get(k) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(Error::bad(k, format!("must be true or false, got {v}"))),
        }
    }

    fn source(&self) -> Result<Option<Source>> {
        match self.get("source") {
            None => Ok(None),
            Some(v) => serde_json::from_value::<Source>(v.clone()).map(Some).map_err(|e| {
                Error::bad(
                    "source",
                    format!("expected {{\"conv\": string, \"seq\": integer or string, \"msgId\"?: string}}: {e}"),
                )
            }),
        }
    }

    fn tz(&self) -> Result<Option<chrono_tz::Tz>> {
        self.str_opt("tz")?.map(|s| crate::config::parse_tz("tz", &s)).transpose()
    }
}

fn to_value<T: Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::Json { what: "tool result".into(), source: e })
}

// ---- shared schema pieces -------------------------------------------------------------

fn source_schema() -> Value {
    object(
        "Where the memory came from; written as 〔src:conv#seq〕 or 〔src:conv#seq/msgId〕 at the end of the line.",
        &[
            ("conv", string("Conversation (session) key, e.g. private:1234567890.")),
            (
                "seq",
                json!({ "oneOf": [integer("Sequence number in the conversation."), string("Sequence number as text.")] }),
            ),
            ("msgId", string("Optional message id.")),
        ],
        &["conv", "seq"],
        true,
    )
}

fn item_schema() -> Value {
    object(
        "One cold-layer entry.",
        &[
            ("id", integer("Index id: (local day number << 20) | ordinal in the day file.")),
            ("date", string("Local date of the day file, YYYY-MM-DD.")),
            ("ts", string("Write time, UTC, ISO-8601 with milliseconds.")),
            (
                "tsKnown",
                boolean(
                    "Present, false, for a hand-written bullet without a timestamp in a day file: its time is \
                     unknown and ts is the start of its local date (a stand-in). Absent otherwise.",
                ),
            ),
            ("tag", string("Tag; \"-\" when untagged.")),
            ("content", string("The text, without the source marker.")),
            ("source", nullable(source_schema())),
            ("score", number("Ranking score (mem_recall, mem_retrieve only); higher ranks first.")),
            ("matched", integer("Query terms matched (mem_recall, mem_retrieve only).")),
        ],
        &["id", "date", "ts", "tag", "content", "source"],
        false,
    )
}

fn items() -> Value {
    array("Entries, best or newest first.", item_schema())
}

fn limit(range: &str, default: i64) -> Value {
    with_default(integer(&format!("How many entries at most, {range}, default {default}.")), json!(default))
}

fn list_output(desc: &str, extra: &[(&str, Value)], extra_required: &[&str]) -> Value {
    let mut props = extra.to_vec();
    props.extend([
        ("scannedFiles", integer("Day files in range.")),
        ("scannedEntries", integer("Entries in those files.")),
        ("matched", integer("Entries matching.")),
        ("returned", integer("Entries returned (at most limit).")),
        ("items", items()),
    ]);
    let mut req = extra_required.to_vec();
    req.extend(["scannedFiles", "scannedEntries", "matched", "returned", "items"]);
    object(desc, &props, &req, false)
}

fn topic_schema() -> Value {
    object(
        "One topics-index line topic|YYYY-MM.",
        &[("topic", string("The topic (usually a tag).")), ("month", string("YYYY-MM."))],
        &["topic", "month"],
        false,
    )
}

fn warnings_schema() -> Value {
    array("Things that went wrong but did not fail the call (present only when any).", string("A warning."))
}

fn window_schema() -> Value {
    object(
        "A time window: the half-open interval [start, end) of UTC instants covering local dates [startDate, endDate).",
        &[
            ("start", string("Inclusive start, UTC instant (RFC 3339).")),
            ("end", string("Exclusive end, UTC instant (RFC 3339).")),
            ("startDate", string("First local date inside the window, YYYY-MM-DD.")),
            ("endDate", string("First local date after the window (exclusive), YYYY-MM-DD.")),
            (
                "grain",
                one_of_strings(
                    "Unit of the expression.",
                    &["day", "week", "month", "quarter", "year", "rolling", "range"],
                ),
            ),
            ("fuzzy", boolean("True for vague expressions (这两天, 最近, recently).")),
            ("partOfDay", nullable(string("Part of day as written (晚上, evening), if any."))),
            ("spans", array("Matched spans [a, b) as code-point offsets.", array("[a, b)", integer("Offset.")))),
            ("matched", string("The matched text.")),
        ],
        &["start", "end", "startDate", "endDate", "grain", "fuzzy", "spans", "matched"],
        false,
    )
}

const NO_ARGS: &[(&str, Value)] = &[];

fn no_args() -> Value {
    object("No arguments.", NO_ARGS, &[], true)
}

// ---- the table ------------------------------------------------------------------------

/// Every tool, in the order `tools/list` shows them.
pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "mem_hot_get",
            description: "Read the hot layer (~600 chars: identity, long-term agreements, work in progress). \
Call it at the start of every session: nothing is injected automatically. Returns the body, its size against the \
limit, the candidates waiting for promotion and the topics index (topic|YYYY-MM: which months a topic touched). \
Candidates older than candidateTtlDays or beyond candidateMax sink to today's cold file (reported in pruned). \
No hot.md reads as an empty body.",
            input: no_args(),
            output: object(
                "The hot layer.",
                &[
                    ("content", string("The hot body (without the candidates and topics blocks).")),
                    ("chars", integer("Body length in Unicode code points.")),
                    ("limit", integer("hotLimit.")),
                    ("overLimit", boolean("chars > limit.")),
                    ("hint", string("How to trim when over the limit; empty otherwise.")),
                    (
                        "candidates",
                        array(
                            "Candidates (written with important: true), oldest first.",
                            object(
                                "One candidate.",
                                &[
                                    ("index", integer("1-based position.")),
                                    ("ts", string("UTC write time.")),
                                    ("tag", string("Tag.")),
                                    ("content", string("Text.")),
                                    ("source", nullable(source_schema())),
                                ],
                                &["index", "ts", "tag", "content", "source"],
                                false,
                            ),
                        ),
                    ),
                    ("candidateCount", integer("Number of candidates.")),
                    ("topics", array("The topics index.", topic_schema())),
                    ("topicCount", integer("Number of topics lines.")),
                    (
                        "pruned",
                        object(
                            "Candidates sunk to cold by this read.",
                            &[
                                ("expired", integer("Older than candidateTtlDays.")),
                                ("overflow", integer("Oldest beyond candidateMax.")),
                                ("kept", integer("Candidates left.")),
                            ],
                            &["expired", "overflow", "kept"],
                            false,
                        ),
                    ),
                    ("warnings", warnings_schema()),
                ],
                &[
                    "content",
                    "chars",
                    "limit",
                    "overLimit",
                    "hint",
                    "candidates",
                    "candidateCount",
                    "topics",
                    "topicCount",
                    "pruned",
                ],
                false,
            ),
            read_only: false,
            handler: |m, _| to_value(&m.hot_get()?),
        },
        ToolDef {
            name: "mem_hot_set",
            description: "Replace the whole hot body with content (not an append; \"\" clears the body). Write a \
trimmed version when mem_hot_get says overLimit. Over the limit (autoEvict on), the least active blank-line-separated \
blocks move to today's cold file (tag hot-evict) until the body is at most evictTarget; headings, blocks with <!--, \
blocks recalled in the last 90 days and high-weight blocks stay, and the last block always stays. Candidates and \
topics are kept unless content carries its own <!-- candidates:start/end --> or <!-- topics:start/end --> block.",
            input: object("Arguments.", &[("content", string("The new hot body (Markdown)."))], &["content"], true),
            output: object(
                "The hot layer after the write.",
                &[
                    ("content", string("The body as stored (after eviction).")),
                    ("chars", integer("Body length before eviction, code points.")),
                    ("limit", integer("hotLimit.")),
                    ("overLimit", boolean("chars > limit before eviction.")),
                    ("hint", string("Trimming hint; empty when within the limit.")),
                    (
                        "evicted",
                        array(
                            "Blocks moved to today's cold file (tag hot-evict).",
                            object(
                                "One evicted block.",
                                &[
                                    ("content", string("The block.")),
                                    ("chars", integer("Its length, code points.")),
                                    ("reason", string("Why it was chosen.")),
                                ],
                                &["content", "chars", "reason"],
                                false,
                            ),
                        ),
                    ),
                    ("charsAfterEvict", integer("Body length after eviction, code points.")),
                    ("evictHint", string("What eviction did or why it could not reach the target.")),
                    ("candidateCount", integer("Candidates after the write.")),
                    ("topicCount", integer("Topics lines after the write.")),
                    ("warnings", warnings_schema()),
                ],
                &[
                    "content",
                    "chars",
                    "limit",
                    "overLimit",
                    "hint",
                    "evicted",
                    "charsAfterEvict",
                    "evictHint",
                    "candidateCount",
                    "topicCount",
                ],
                false,
            ),
            read_only: false,
            handler: |m, a| to_value(&m.hot_set(&a.str_req("content")?)?),
        },
        ToolDef {
            name: "mem_write",
            description: "Append one memory to today's cold file (cold/YYYY-MM/YYYY-MM-DD.md). Use it for details \
worth keeping: one line, whitespace collapsed, at most 4000 chars; give a tag so mem_by_tag finds it. important: true \
also puts it among the hot layer's candidates. An identical (tag, case-insensitive, + text) entry of today is not written twice \
(added: false); a new source only updates its source marker.",
            input: object(
                "Arguments.",
                &[
                    ("text", string("The memory, one line (newlines become spaces), at most 4000 chars.")),
                    ("tag", string("Tag, e.g. 约定, 家庭, 计划; [ ] are removed. Omitted: untagged (\"-\").")),
                    ("important", with_default(boolean("Also add it to the hot layer's candidates."), json!(false))),
                    ("source", nullable(source_schema())),
                ],
                &["text"],
                true,
            ),
            output: object(
                "What was written.",
                &[
                    ("added", boolean("False when the same tag + text already existed today.")),
                    ("date", string("Local date of the file written, YYYY-MM-DD.")),
                    ("ts", string("UTC write time.")),
                    ("tag", string("Tag as stored.")),
                    ("candidateIndex", integer("1-based candidate position when important, else 0.")),
                    ("source", nullable(source_schema())),
                    ("sourceUpdated", boolean("True when only the source marker of an existing line changed.")),
                    ("summaryCreated", boolean("True when the day summary was regenerated (every 20 entries).")),
                    ("dayCount", integer("Entries in today's file after the write.")),
                    ("overLimit", boolean("important only: is the hot body over its limit.")),
                    ("hint", string("important only: trimming hint.")),
                    (
                        "zoneRecorded",
                        string(
                            "First write into a new data root only: the IANA zone recorded for it, which dates \
                             every day file from now on.",
                        ),
                    ),
                ],
                &[
                    "added",
                    "date",
                    "ts",
                    "tag",
                    "candidateIndex",
                    "source",
                    "sourceUpdated",
                    "summaryCreated",
                    "dayCount",
                ],
                false,
            ),
            read_only: false,
            handler: |m, a| {
                let args = WriteArgs {
                    text: a.str_req("text")?,
                    tag: a.str_opt("tag")?,
                    important: a.bool_opt("important")?,
                    source: a.source()?,
                };
                to_value(&m.write(&args)?)
            },
        },
        ToolDef {
            name: "mem_recall",
            description: "Keyword recall over every month of the cold layer (case-insensitive; content or tag; a \
Chinese word of 3+ chars also matches through its bigrams). Several space-separated keywords: all must match (mode \
and) or any (or / any). Ranked by score, ties newest first; each hit is recorded in usage.json so often-recalled \
memories rank higher. Fallback order when you cannot remember something: mem_recent(3) → the topics index of \
mem_hot_get → mem_by_date on those months → mem_recall last. For a question with a time word (上周, yesterday) use \
mem_retrieve.",
            input: object(
                "Arguments.",
                &[
                    ("keyword", string("Keyword(s), space-separated.")),
                    ("limit", limit("1–50", 10)),
                    (
                        "mode",
                        with_default(
                            one_of_strings("How several keywords combine.", &["and", "or", "any"]),
                            json!("and"),
                        ),
                    ),
                ],
                &["keyword"],
                true,
            ),
            output: object(
                "Ranked hits.",
                &[
                    ("mode", one_of_strings("The mode used.", &["and", "or", "any"])),
                    ("tokens", array("The keywords.", string("A keyword."))),
                    ("probes", array("The substrings searched (bigrams for long Chinese words).", string("A probe."))),
                    ("scannedFiles", integer("Day files searched.")),
                    ("scannedEntries", integer("Entries searched.")),
                    ("matched", integer("Entries matching.")),
                    ("returned", integer("Entries returned.")),
                    ("items", items()),
                ],
                &["mode", "tokens", "probes", "scannedFiles", "scannedEntries", "matched", "returned", "items"],
                false,
            ),
            read_only: true,
            handler: |m, a| {
                let mode = a.str_opt("mode")?;
                to_value(&m.recall_named(&a.str_req("keyword")?, a.int_opt("limit")?, mode.as_deref())?)
            },
        },
        ToolDef {
            name: "mem_recent",
            description: "Entries of the last N local days (today included), newest first. Good for \"what happened \
just now / these days\", and the first step of the fallback order (mem_recent(3) → topics index → mem_by_date → \
mem_recall).",
            input: object(
                "Arguments.",
                &[
                    ("days", with_default(integer("Number of local days, 1–365, default 3."), json!(3))),
                    ("limit", limit("1–200", 50)),
                ],
                &[],
                true,
            ),
            output: list_output(
                "Recent entries.",
                &[
                    ("days", integer("The number of days.")),
                    ("from", string("First local date, YYYY-MM-DD.")),
                    ("to", string("Last local date (today), YYYY-MM-DD.")),
                ],
                &["days", "from", "to"],
            ),
            read_only: true,
            handler: |m, a| to_value(&m.recent(a.int_opt("days")?, a.int_opt("limit")?)?),
        },
        ToolDef {
            name: "mem_by_tag",
            description: "Entries with this tag (exact, case-insensitive), newest first. \"-\" gives the untagged \
entries. For reviewing one category, e.g. 家庭 or 约定.",
            input: object(
                "Arguments.",
                &[("tag", string("The tag; \"-\" for untagged entries.")), ("limit", limit("1–200", 20))],
                &["tag"],
                true,
            ),
            output: list_output("Entries with the tag.", &[("tag", string("The tag asked for."))], &["tag"]),
            read_only: true,
            handler: |m, a| to_value(&m.by_tag(&a.str_req("tag")?, a.int_opt("limit")?)?),
        },
        ToolDef {
            name: "mem_by_date",
            description: "Entries of a closed range of local dates (from and to both YYYY-MM-DD, inclusive; one day: \
from = to), newest first. Use it on the months the topics index points at. At most 3660 days.",
            input: object(
                "Arguments.",
                &[
                    ("from", string("First local date, YYYY-MM-DD.")),
                    ("to", string("Last local date (inclusive), YYYY-MM-DD.")),
                    ("limit", limit("1–200", 50)),
                ],
                &["from", "to"],
                true,
            ),
            output: list_output(
                "Entries of the range.",
                &[("from", string("First local date.")), ("to", string("Last local date."))],
                &["from", "to"],
            ),
            read_only: true,
            handler: |m, a| to_value(&m.by_date(&a.str_req("from")?, &a.str_req("to")?, a.int_opt("limit")?)?),
        },
        ToolDef {
            name: "mem_summarize",
            description: "Generate (or return the existing) extractive summary of a day, ISO week or month: entry \
lists copied from the layer below, never invented text (day 1500 / week 1000 / month 700 chars). Call it at the end \
of a day (day) or week (week). Also adds the period's 3 most frequent tags to the topics index. An empty or future \
period writes no file.",
            input: object(
                "Arguments.",
                &[
                    ("period", with_default(one_of_strings("The period.", &["day", "week", "month"]), json!("day"))),
                    ("date", string("A local date YYYY-MM-DD inside the period; default today.")),
                    ("force", with_default(boolean("Regenerate even when the summary exists."), json!(false))),
                ],
                &[],
                true,
            ),
            output: object(
                "The summary.",
                &[
                    ("period", one_of_strings("The period.", &["day", "week", "month"])),
                    ("label", string("YYYY-MM-DD, YYYY-Www or YYYY-MM.")),
                    ("file", string("Path under the data root, e.g. summaries/week/2026-W43.md.")),
                    ("created", boolean("True when this call wrote the file.")),
                    ("content", string("The summary text.")),
                    ("original", nullable(integer("Source entries (null when read from an existing file)."))),
                    ("kept", integer("Lines kept.")),
                    ("omitted", integer("Lines left out for the budget.")),
                    ("topTags", array("The most frequent tags.", string("A tag."))),
                    ("topicsAdded", integer("Lines added to the topics index.")),
                    ("note", string("Why no file was written (empty or future period); absent otherwise.")),
                ],
                &[
                    "period",
                    "label",
                    "file",
                    "created",
                    "content",
                    "original",
                    "kept",
                    "omitted",
                    "topTags",
                    "topicsAdded",
                ],
                false,
            ),
            read_only: false,
            handler: |m, a| {
                let period = a.str_opt("period")?;
                let date = a.str_opt("date")?;
                to_value(&m.summarize(period.as_deref(), date.as_deref(), a.bool_opt("force")?)?)
            },
        },
        ToolDef {
            name: "mem_stats",
            description: "Sizes of every layer (hot chars/limit/candidates/topics; cold files and entries per month \
with the latest date; summary files and chars per level) and usage: topRecalled, weightTop, and weightBottom (the \
entries most likely to be evicted next). Use it to decide whether to trim the hot layer or generate summaries.",
            input: no_args(),
            output: stats_output(),
            read_only: true,
            handler: |m, _| to_value(&m.stats()?),
        },
        ToolDef {
            name: "mem_retrieve",
            description: "Answer a question about the past: a time expression in the query (上周, 三天前, 去年的今天, \
中秋, last week, yesterday evening) becomes a time window applied before BM25 ranks anything, so \"上周我们定了什么\" \
only looks at last week. Use it for any question with a time word; give from/to (local dates, both) to set the window \
yourself. explain: true shows the window, the FTS5 query and the score parts.",
            input: object(
                "Arguments.",
                &[
                    ("query", string("The question or keywords, with or without a time expression.")),
                    ("from", string("Window start, local date YYYY-MM-DD (needs to); skips time parsing.")),
                    ("to", string("Window end, local date YYYY-MM-DD, inclusive (needs from).")),
                    (
                        "tz",
                        string(
                            "IANA time zone for time words and dates, e.g. Asia/Shanghai; default the configured one.",
                        ),
                    ),
                    ("limit", limit("1–50", 10)),
                    ("explain", with_default(boolean("Add how the result was found."), json!(false))),
                ],
                &["query"],
                true,
            ),
            output: object(
                "Ranked hits inside the window.",
                &[
                    ("query", string("The query.")),
                    ("matched", integer("Entries matching in the window.")),
                    ("returned", integer("Entries returned.")),
                    ("items", items()),
                    (
                        "widened",
                        json!({ "type": "object", "description": "Only when nothing matched in the window and the answer comes from it widened once: by (\"±1 day\" / \"±7 days\"), startDate, endDate (exclusive)." }),
                    ),
                    (
                        "explain",
                        json!({ "type": "object", "description": "explain only: window, windowSource, tz, rest, ftsQuery, sql, hits with score parts." }),
                    ),
                ],
                &["query", "matched", "returned", "items"],
                false,
            ),
            read_only: true,
            handler: |m, a| {
                let time_range = match (a.str_opt("from")?, a.str_opt("to")?) {
                    (Some(f), Some(t)) => Some(TimeRange::Dates {
                        from: crate::files::parse_date("from", &f)?,
                        to: crate::files::parse_date("to", &t)?,
                    }),
                    (Some(_), None) => return Err(Error::bad("to", "is required when from is given")),
                    (None, Some(_)) => return Err(Error::bad("from", "is required when to is given")),
                    (None, None) => None,
                };
                let args = RetrieveArgs {
                    query: a.str_req("query")?,
                    time_range,
                    tz: a.tz()?,
                    limit: a.int_opt("limit")?,
                    explain: a.bool_opt("explain")?,
                    ..Default::default()
                };
                to_value(&m.retrieve(&args)?)
            },
        },
        ToolDef {
            name: "mem_time_window",
            description: "Turn a time expression (上周三, 三天前, 去年的今天, 中秋, last week) into the time window \
mem_retrieve would use: the half-open interval of UTC instants and the local dates it covers. Reads no memory.",
            input: object(
                "Arguments.",
                &[
                    ("text", string("Text containing a time expression.")),
                    ("tz", string("IANA time zone, e.g. Asia/Shanghai; default the configured one.")),
                ],
                &["text"],
                true,
            ),
            output: object(
                "The window.",
                &[("window", nullable(window_schema())), ("rest", string("The text without the time expression."))],
                &["window", "rest"],
                false,
            ),
            read_only: true,
            handler: |m, a| {
                let text = a.str_req("text")?;
                let tz = a.tz()?.unwrap_or(m.tz());
                let now: DateTime<Utc> = m.now();
                let p = crate::temporal::parse(&text, now, tz);
                Ok(json!({ "window": to_value(&p.window)?, "rest": p.rest }))
            },
        },
    ]
}

fn stats_output() -> Value {
    let level = || {
        object(
            "One summary level.",
            &[("files", integer("Files.")), ("chars", integer("Total code points."))],
            &["files", "chars"],
            false,
        )
    };
    let usage_item = || {
        object(
            "One ledger entry.",
            &[
                ("key", string("sha1 of the text.")),
                ("text", string("The first 40 chars of the text.")),
                ("hits", integer("Recall hits.")),
                ("weight", number("Weight 0–100, decayed to now.")),
                ("lastHitAt", nullable(string("UTC time of the last hit."))),
            ],
            &["key", "text", "hits", "weight", "lastHitAt"],
            false,
        )
    };
    object(
        "Layer sizes and usage.",
        &[
            (
                "hot",
                object(
                    "Hot layer.",
                    &[
                        ("chars", integer("Body code points.")),
                        ("limit", integer("hotLimit.")),
                        ("overLimit", boolean("chars > limit.")),
                        ("candidateCount", integer("Candidates.")),
                        ("topicCount", integer("Topics lines.")),
                    ],
                    &["chars", "limit", "overLimit", "candidateCount", "topicCount"],
                    false,
                ),
            ),
            (
                "cold",
                object(
                    "Cold layer.",
                    &[
                        ("files", integer("Day files.")),
                        ("entries", integer("Entries.")),
                        ("latest", nullable(string("Latest local date."))),
                        (
                            "months",
                            array(
                                "Per month.",
                                object(
                                    "One month.",
                                    &[
                                        ("month", string("YYYY-MM.")),
                                        ("files", integer("Day files.")),
                                        ("entries", integer("Entries.")),
                                        ("latest", nullable(string("Latest local date."))),
                                    ],
                                    &["month", "files", "entries", "latest"],
                                    false,
                                ),
                            ),
                        ),
                    ],
                    &["files", "entries", "latest", "months"],
                    false,
                ),
            ),
            (
                "summaries",
                object(
                    "Summary files per level.",
                    &[("day", level()), ("week", level()), ("month", level())],
                    &["day", "week", "month"],
                    false,
                ),
            ),
            (
                "usage",
                object(
                    "The usage ledger.",
                    &[("entries", integer("Entries with a record.")), ("hits", integer("Total hits."))],
                    &["entries", "hits"],
                    false,
                ),
            ),
            ("topRecalled", array("The 5 most recalled.", usage_item())),
            ("weightTop", array("The 5 highest weights.", usage_item())),
            ("weightBottom", array("The 5 lowest weights (evicted first).", usage_item())),
        ],
        &["hot", "cold", "summaries", "usage", "topRecalled", "weightTop", "weightBottom"],
        false,
    )
}

#[cfg(test)]
mod tests {
    use super::super::schema::subset_violations;
    use super::*;

    #[test]
    fn every_schema_is_inside_the_subset() {
        let t = tools();
        assert_eq!(t.len(), 11);
        for d in &t {
            assert_eq!(subset_violations(&d.input), Vec::<String>::new(), "{} input", d.name);
            assert_eq!(subset_violations(&d.output), Vec::<String>::new(), "{} output", d.name);
            assert_eq!(d.input["additionalProperties"], json!(false), "{} input is closed", d.name);
        }
    }
}

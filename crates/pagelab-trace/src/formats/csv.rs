//! Delimited text traces with a column mapping given on the command line.
//!
//! Many block traces are "a CSV with these columns"; rather than one reader each, `csv:SPEC` says which
//! column holds what. The spec is a comma-separated list of items, read left to right (the items after a
//! preset override its settings, so a preset can be adjusted; a key given twice, or both `lbn` and `id`,
//! is refused, since the last would win in silence):
//!
//! | item | meaning | default |
//! |---|---|---|
//! | `lbn=N` | column N holds a disk address in units of `unit` bytes (`AddrUnit::Bytes(unit)`) | — |
//! | `id=N` | column N holds an object id (`AddrUnit::Object`); exactly one of `lbn`, `id` | — |
//! | `time=N` | column N holds the timestamp, a decimal `INT[.FRACTION]` in `time-unit` | time 0 |
//! | `size=N` | column N holds the request length in units of `size-unit` bytes | size 0 |
//! | `op=N` | column N holds the operation, matched against `read`, `write`, `other` | all reads |
//! | `volume=N`, `stream=N` | columns of the volume (device) and stream (process) numbers | 0 |
//! | `header` | the first line is a header, not a record | no header |
//! | `delim=C` | the field delimiter: one character, or `comma`, `tab`, `space`, `semicolon`, `pipe` | `,` |
//! | `unit=B` | bytes per `lbn` unit | 512 |
//! | `size-unit=B` | bytes per `size` unit | 1 |
//! | `time-unit=U` | `ns`, `us`, `ms`, `s` or `100ns` (Windows filetime ticks) | `ns` |
//! | `read=V\|V..`, `write=..`, `other=..` | op values (ASCII case-insensitive) for each kind | `r\|read`, `w\|write`, none |
//!
//! Column numbers are **1-based**, as in `cut -f`, `awk` and libCacheSim's `obj-id-col=`. `delim=,` takes
//! the one character after `=` literally, so `csv:id=1,delim=,` works. An op value that is in none of the
//! three lists is a bad record (not silently a read). Fields are not unquoted; extra columns are ignored.
//!
//! Presets (as the first item): `cloudphysics` — libCacheSim's cloudPhysics CSV, header
//! `version,time,op,size,lbn`, op `28` (SCSI READ(10)) read and `2a` (WRITE(10)) write, size in bytes, lbn
//! in 512-byte sectors, time in seconds (libCacheSim derives it from the vscsi timestamp in µs / 10^6, and
//! its oracle-general copy holds the same seconds); `pagelab` and `pagelab-objects` — the CSV that
//! [`crate::write::CsvWriter`] writes (`time_ns,addr,size,op,volume,stream`, addr in bytes;
//! `time_ns,id,size,op,volume,stream` for object traces). A preset checks its header word for word;
//! overriding a preset's column turns that check into a plain skip of line 1.

use super::{expect_field, LineFormat, Parsed};
use crate::error::TraceError;
use crate::parse::{parse_decimal_ns, parse_u32, parse_u64, TimeUnit};
use crate::request::{AddrUnit, Op, Request, NO_NEXT};
use pagelab_core::spec::{self, needs_value};

/// Largest column number accepted (a bound on the fields split per line).
pub const COLUMN_MAX: usize = 256;

/// The header of the CSV that [`crate::write::CsvWriter`] writes for block traces.
pub const PAGELAB_HEADER: &str = "time_ns,addr,size,op,volume,stream";
/// The header for object traces.
pub const PAGELAB_OBJECTS_HEADER: &str = "time_ns,id,size,op,volume,stream";
/// libCacheSim's cloudPhysics CSV header.
pub const CLOUDPHYSICS_HEADER: &str = "version,time,op,size,lbn";

const CLOUDPHYSICS: &str = "time=2,op=3,size=4,lbn=5,header,unit=512,time-unit=s,read=28,write=2a";
const PAGELAB: &str =
    "time=1,lbn=2,size=3,op=4,volume=5,stream=6,header,unit=1,time-unit=ns,read=R,write=W,other=O";
const PAGELAB_OBJECTS: &str =
    "time=1,id=2,size=3,op=4,volume=5,stream=6,header,time-unit=ns,read=R,write=W,other=O";

/// The spec keys, for error messages.
const KEYS: &str = "lbn, id, time, size, op, volume, stream, header, delim, unit, size-unit, time-unit, \
                    read, write, other, or a preset first (cloudphysics, pagelab, pagelab-objects)";

/// What line 1 is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Header {
    None,
    /// Skipped whatever it holds.
    Skip,
    /// Must be exactly this (a preset's header).
    Expect(String),
}

/// Where the address comes from and what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrColumn {
    Lbn(usize),
    Id(usize),
}

/// A parsed `csv:` spec. Columns are stored 0-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvSpec {
    pub addr: AddrColumn,
    pub time: Option<usize>,
    pub size: Option<usize>,
    pub op: Option<usize>,
    pub volume: Option<usize>,
    pub stream: Option<usize>,
    pub header: Header,
    pub delimiter: u8,
    pub unit_bytes: u32,
    pub size_unit_bytes: u32,
    pub time_unit: TimeUnit,
    pub read_values: Vec<String>,
    pub write_values: Vec<String>,
    pub other_values: Vec<String>,
}

/// Builder state while items are read: the address column may come late.
struct Draft {
    lbn: Option<usize>,
    id: Option<usize>,
    spec: CsvSpec,
}

impl CsvSpec {
    /// Parses `csv:ITEMS` (the `csv:` prefix is optional). Errors name the offending item.
    pub fn parse(spec: &str) -> Result<CsvSpec, TraceError> {
        let body = spec.strip_prefix("csv:").unwrap_or(spec);
        let body = body.strip_prefix("csv").filter(|b| b.is_empty()).unwrap_or(body);
        let what = format!("csv spec `{spec}`");
        let mut draft = Draft {
            lbn: None,
            id: None,
            spec: CsvSpec {
                addr: AddrColumn::Lbn(0),
                time: None,
                size: None,
                op: None,
                volume: None,
                stream: None,
                header: Header::None,
                delimiter: b',',
                unit_bytes: 512,
                size_unit_bytes: 1,
                time_unit: TimeUnit::NS,
                read_values: vec!["r".into(), "read".into()],
                write_values: vec!["w".into(), "write".into()],
                other_values: Vec::new(),
            },
        };
        let items = split_items(body).map_err(|why| TraceError::invalid(&what, why))?;
        for (i, (key, value)) in items.iter().enumerate() {
            let preset = match key.as_str() {
                "cloudphysics" => Some((CLOUDPHYSICS, CLOUDPHYSICS_HEADER)),
                "pagelab" => Some((PAGELAB, PAGELAB_HEADER)),
                "pagelab-objects" => Some((PAGELAB_OBJECTS, PAGELAB_OBJECTS_HEADER)),
                _ => None,
            };
            match preset {
                Some(_) if i > 0 => {
                    return Err(TraceError::invalid(&what, format!("preset `{key}` must be the first item")))
                }
                Some((items, header)) => {
                    for (k, v) in split_items(items).expect("presets parse") {
                        draft.apply(&k, v.as_deref()).expect("presets are valid");
                    }
                    draft.spec.header = Header::Expect(header.to_string());
                }
                None => draft.apply(key, value.as_deref()).map_err(|why| TraceError::invalid(&what, why))?,
            }
            refuse_repeat(&items[..i], key).map_err(|why| TraceError::invalid(&what, why))?;
        }
        draft.spec.addr = match (draft.lbn, draft.id) {
            (Some(c), None) => AddrColumn::Lbn(c),
            (None, Some(c)) => AddrColumn::Id(c),
            (None, None) => {
                return Err(TraceError::invalid(&what, "no address column: give `lbn=N` or `id=N`"))
            }
            (Some(_), Some(_)) => unreachable!("`lbn` clears `id` and the other way round"),
        };
        Ok(draft.spec)
    }

    /// The 0-based index of the rightmost column the spec reads.
    fn last_column(&self) -> usize {
        let addr = match self.addr {
            AddrColumn::Lbn(c) | AddrColumn::Id(c) => c,
        };
        [self.time, self.size, self.op, self.volume, self.stream].into_iter().flatten().fold(addr, usize::max)
    }

    /// A spec string that [`CsvSpec::parse`] turns back into exactly this spec: the preset's name when it
    /// is one, else the preset (if its header check is on) or nothing, followed by every setting.
    pub fn to_spec(&self) -> String {
        let presets = [
            ("cloudphysics", CLOUDPHYSICS_HEADER),
            ("pagelab", PAGELAB_HEADER),
            ("pagelab-objects", PAGELAB_OBJECTS_HEADER),
        ];
        for (preset, _) in presets {
            if CsvSpec::parse(preset).is_ok_and(|p| p == *self) {
                return format!("csv:{preset}");
            }
        }
        let mut items: Vec<String> = Vec::new();
        match &self.header {
            Header::Expect(h) => match presets.iter().find(|(_, ph)| ph == h) {
                Some((preset, _)) => items.push(preset.to_string()),
                None => items.push("header".into()), // not reachable through `parse`
            },
            Header::Skip => items.push("header".into()),
            Header::None => {}
        }
        items.push(match self.addr {
            AddrColumn::Lbn(c) => format!("lbn={}", c + 1),
            AddrColumn::Id(c) => format!("id={}", c + 1),
        });
        let columns = [
            ("time", self.time),
            ("size", self.size),
            ("op", self.op),
            ("volume", self.volume),
            ("stream", self.stream),
        ];
        items.extend(columns.iter().filter_map(|(k, c)| c.map(|c| format!("{k}={}", c + 1))));
        items.push(format!("unit={}", self.unit_bytes));
        items.push(format!("size-unit={}", self.size_unit_bytes));
        items.push(format!("time-unit={}", self.time_unit.name()));
        items.push(format!("read={}", self.read_values.join("|")));
        items.push(format!("write={}", self.write_values.join("|")));
        items.push(format!("other={}", self.other_values.join("|")));
        // Last, so that a literal `,` needs no escaping.
        items.push(match self.delimiter {
            b'\t' => "delim=tab".into(),
            b' ' => "delim=space".into(),
            d => format!("delim={}", d as char),
        });
        format!("csv:{}", items.join(","))
    }

    pub fn addr_unit(&self) -> AddrUnit {
        match self.addr {
            AddrColumn::Lbn(_) => AddrUnit::Bytes(self.unit_bytes),
            AddrColumn::Id(_) => AddrUnit::Object,
        }
    }
}

impl Draft {
    /// Applies one `key[=value]` item.
    fn apply(&mut self, key: &str, value: Option<&str>) -> Result<(), String> {
        let s = &mut self.spec;
        let need = || value.ok_or_else(|| needs_value(key));
        // Moving a preset's column makes its literal header check wrong; keep only the skip.
        let current = match key {
            "lbn" => Some(self.lbn),
            "id" => Some(self.id),
            "time" => Some(s.time),
            "size" => Some(s.size),
            "op" => Some(s.op),
            "volume" => Some(s.volume),
            "stream" => Some(s.stream),
            _ => None,
        };
        if let (Some(current), Header::Expect(_)) = (current, &s.header) {
            if current != Some(column(key, need()?)?) {
                s.header = Header::Skip;
            }
        }
        match key {
            "lbn" => (self.lbn, self.id) = (Some(column(key, need()?)?), None),
            "id" => (self.id, self.lbn) = (Some(column(key, need()?)?), None),
            "time" => s.time = Some(column(key, need()?)?),
            "size" => s.size = Some(column(key, need()?)?),
            "op" => s.op = Some(column(key, need()?)?),
            "volume" => s.volume = Some(column(key, need()?)?),
            "stream" => s.stream = Some(column(key, need()?)?),
            "header" if value.is_none() => s.header = Header::Skip,
            "header" => return Err("`header` is a flag and takes no value".into()),
            "delim" => s.delimiter = delimiter(need()?)?,
            "unit" => s.unit_bytes = positive(key, need()?)?,
            "size-unit" => s.size_unit_bytes = positive(key, need()?)?,
            "time-unit" => {
                let v = need()?;
                s.time_unit = TimeUnit::from_name(v)
                    .ok_or_else(|| format!("bad `time-unit={v}`: expected one of {}", TimeUnit::NAMES))?;
            }
            "read" => s.read_values = op_values(need()?),
            "write" => s.write_values = op_values(need()?),
            "other" => s.other_values = op_values(need()?),
            _ => return Err(format!("unknown key `{key}`: expected {KEYS}")),
        }
        Ok(())
    }
}

/// Refuses `key` when one of the user's items before it (`earlier`) gave it already, or gave the other
/// address column: the preset's own items may be overridden, the user's own may not (the last would win in
/// silence).
fn refuse_repeat(earlier: &[(String, Option<String>)], key: &str) -> Result<(), String> {
    spec::refuse_repeat(earlier.iter().map(|(k, _)| k.as_str()), key)?;
    let other = match key {
        "lbn" => "id",
        "id" => "lbn",
        _ => return Ok(()),
    };
    if earlier.iter().any(|(k, _)| k == other) {
        return Err("both `lbn` and `id` given: choose one address column".into());
    }
    Ok(())
}

/// Splits `a=1,b,delim=,,c=2` into items; the character after `delim=` is taken literally.
fn split_items(body: &str) -> Result<Vec<(String, Option<String>)>, String> {
    let mut items = Vec::new();
    let mut rest = body;
    // Bounded: every pass consumes at least one character of `rest` (or ends).
    while !rest.is_empty() {
        let key_end = rest.find(['=', ',']).unwrap_or(rest.len());
        let key = rest[..key_end].trim();
        if key.is_empty() {
            return Err(format!("empty item at `{rest}`"));
        }
        rest = &rest[key_end..];
        let value = match rest.strip_prefix('=') {
            None => None,
            Some(after) if key == "delim" => {
                let named = ["comma", "tab", "space", "semicolon", "pipe"].into_iter().find(|n| {
                    after.starts_with(n) && matches!(after.as_bytes().get(n.len()), None | Some(b','))
                });
                let len = named.map_or_else(|| after.chars().next().map_or(0, char::len_utf8), str::len);
                rest = &after[len..];
                Some(after[..len].to_string())
            }
            Some(after) => {
                let end = after.find(',').unwrap_or(after.len());
                rest = &after[end..];
                Some(after[..end].trim().to_string())
            }
        };
        match rest.strip_prefix(',') {
            Some(after) => rest = after,
            None if rest.is_empty() => {}
            None => return Err(format!("expected `,` after `{key}`, found `{rest}`")),
        }
        items.push((key.to_string(), value));
    }
    Ok(items)
}

fn column(key: &str, value: &str) -> Result<usize, String> {
    match value.parse::<usize>() {
        Ok(n) if (1..=COLUMN_MAX).contains(&n) => Ok(n - 1),
        _ => Err(format!("bad `{key}={value}`: expected a 1-based column number in 1..={COLUMN_MAX}")),
    }
}

fn positive(key: &str, value: &str) -> Result<u32, String> {
    match value.parse::<u32>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("bad `{key}={value}`: expected a positive number of bytes")),
    }
}

fn delimiter(value: &str) -> Result<u8, String> {
    match value {
        "comma" => Ok(b','),
        "tab" => Ok(b'\t'),
        "space" => Ok(b' '),
        "semicolon" => Ok(b';'),
        "pipe" => Ok(b'|'),
        v if v.len() == 1 && v != "\n" => Ok(v.as_bytes()[0]),
        v => Err(format!(
            "bad `delim={v}`: expected one ASCII character or comma, tab, space, semicolon, pipe"
        )),
    }
}

/// `a|b|c` → the values; an empty value gives an empty list (`other=`: no value is "other").
fn op_values(value: &str) -> Vec<String> {
    value.split('|').filter(|v| !v.is_empty()).map(str::to_string).collect()
}

/// Reads a CSV trace by a [`CsvSpec`].
pub(crate) struct Csv {
    spec: CsvSpec,
    /// The record form for messages, e.g. `time=2,op=3,size=4,lbn=5 (1-based columns of ,)`.
    form: String,
    columns: usize,
    /// Byte ranges of the current line's fields, reused across lines.
    fields: Vec<(usize, usize)>,
}

impl Csv {
    pub fn new(spec: CsvSpec) -> Csv {
        let form = describe_columns(&spec);
        let columns = spec.last_column() + 1;
        Csv { spec, form, columns, fields: Vec::with_capacity(COLUMN_MAX) }
    }

    fn op(&self, value: &[u8]) -> Option<Op> {
        let is = |list: &[String]| list.iter().any(|v| v.as_bytes().eq_ignore_ascii_case(value));
        if is(&self.spec.read_values) {
            Some(Op::Read)
        } else if is(&self.spec.write_values) {
            Some(Op::Write)
        } else if is(&self.spec.other_values) {
            Some(Op::Other)
        } else {
            None
        }
    }

    fn op_expected(&self) -> String {
        let list = |l: &[String]| if l.is_empty() { "-".to_string() } else { l.join("|") };
        format!(
            "an op value (read: {}; write: {}; other: {})",
            list(&self.spec.read_values),
            list(&self.spec.write_values),
            list(&self.spec.other_values)
        )
    }

    fn parse_record(&self, line: &[u8]) -> Result<Request, String> {
        let s = &self.spec;
        let field = |c: usize| &line[self.fields[c].0..self.fields[c].1];
        let bad = |what: &str, name: &str| expect_field(what, name, &self.form);
        let (addr_col, addr_name) = match s.addr {
            AddrColumn::Lbn(c) => (c, "lbn"),
            AddrColumn::Id(c) => (c, "id"),
        };
        let addr = parse_u64(field(addr_col)).ok_or_else(|| bad("an unsigned integer", addr_name))?;
        let time_ns = match s.time {
            Some(c) => parse_decimal_ns(field(c), s.time_unit.unit_ns)
                .ok_or_else(|| bad("a non-negative decimal number", "time"))?,
            None => 0,
        };
        let size_bytes = match s.size {
            Some(c) => parse_u32(field(c))
                .and_then(|v| v.checked_mul(s.size_unit_bytes))
                .ok_or_else(|| bad("an unsigned integer (bytes < 2^32)", "size"))?,
            None => 0,
        };
        let op = match s.op {
            Some(c) => self.op(field(c)).ok_or_else(|| bad(&self.op_expected(), "op"))?,
            None => Op::Read,
        };
        let small = |c: Option<usize>, name: &str| match c {
            Some(c) => parse_u32(field(c)).ok_or_else(|| bad("an unsigned 32-bit integer", name)),
            None => Ok(0),
        };
        let volume = small(s.volume, "volume")?;
        let stream = small(s.stream, "stream")?;
        Ok(Request { time_ns, addr, size_bytes, op, volume, stream, next_vtime: NO_NEXT })
    }
}

/// `time=2,op=3,size=4,lbn=5` with the delimiter named, for error messages.
fn describe_columns(spec: &CsvSpec) -> String {
    let mut cols: Vec<(usize, &str)> = Vec::new();
    match spec.addr {
        AddrColumn::Lbn(c) => cols.push((c, "lbn")),
        AddrColumn::Id(c) => cols.push((c, "id")),
    }
    let optional = [
        (spec.time, "time"),
        (spec.size, "size"),
        (spec.op, "op"),
        (spec.volume, "volume"),
        (spec.stream, "stream"),
    ];
    cols.extend(optional.into_iter().filter_map(|(c, n)| c.map(|c| (c, n))));
    cols.sort();
    let names: Vec<String> = cols.iter().map(|(c, n)| format!("{n}={}", c + 1)).collect();
    let delim = match spec.delimiter {
        b'\t' => "tab".to_string(),
        b' ' => "space".to_string(),
        d => format!("'{}'", d as char),
    };
    format!("{} (1-based columns separated by {delim})", names.join(","))
}

impl LineFormat for Csv {
    const NAME: &'static str = "csv";

    fn addr_unit(&self) -> AddrUnit {
        self.spec.addr_unit()
    }

    fn parse(&mut self, line_no: u64, line: &[u8]) -> Parsed {
        if line_no == 1 {
            match &self.spec.header {
                Header::None => {}
                Header::Skip => return Parsed::NotRequest { counted: false },
                Header::Expect(h) if h.as_bytes() == line => return Parsed::NotRequest { counted: false },
                Header::Expect(h) => return Parsed::Bad(format!("the header `{h}`")),
            }
        }
        // Field ranges rather than slices, so that the reused vector does not borrow the line.
        self.fields.clear();
        let mut start = 0;
        for end in memchr::memchr_iter(self.spec.delimiter, line) {
            if self.fields.len() == self.columns {
                break; // the rest are columns the spec does not read
            }
            self.fields.push((start, end));
            start = end + 1;
        }
        if self.fields.len() < self.columns {
            self.fields.push((start, line.len()));
        }
        if self.fields.len() < self.columns {
            let found = self.fields.len();
            return Parsed::Bad(format!("at least {} fields: {}, found {found}", self.columns, self.form));
        }
        match self.parse_record(line) {
            Ok(r) => Parsed::Request(r),
            Err(expected) => Parsed::Bad(expected),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{bad_record, read_bytes, read_text};

    fn req(time_ns: u64, addr: u64, size_bytes: u32, op: Op) -> Request {
        Request { time_ns, addr, size_bytes, op, volume: 0, stream: 0, next_vtime: NO_NEXT }
    }

    const CLOUDPHYSICS_SAMPLE: &str = "version,time,op,size,lbn\n\
                                       1,5633898,2a,512,42932745\n\
                                       1,5633899,28,6144,31954535\n\
                                       1,5633900,2A,4096,6160447\n";

    #[test]
    fn cloudphysics_preset() {
        let got = read_text("c.csv", CLOUDPHYSICS_SAMPLE, "csv:cloudphysics").unwrap();
        assert_eq!(
            got,
            vec![
                req(5_633_898_000_000_000, 42932745, 512, Op::Write),
                req(5_633_899_000_000_000, 31954535, 6144, Op::Read),
                req(5_633_900_000_000_000, 6160447, 4096, Op::Write),
            ]
        );
        let spec = CsvSpec::parse("cloudphysics").unwrap();
        assert_eq!(spec.addr_unit(), AddrUnit::Bytes(512));
        assert_eq!(spec, CsvSpec::parse("csv:cloudphysics").unwrap());
    }

    #[test]
    fn custom_mapping_with_tab_delimiter_and_units() {
        let text = "# ts\tdev\tpid\top\toffset\tlen\n0.5\t3\t77\tR\t8\t2\n1.25\t3\t78\tWRITE\t9\t1\n";
        let spec = "csv:header,delim=tab,time=1,volume=2,stream=3,op=4,lbn=5,size=6,unit=4096,size-unit=4096,time-unit=s";
        let got = read_text("x.tsv", text, spec).unwrap();
        let r = |time_ns, addr, size_bytes, op, stream| Request {
            time_ns,
            addr,
            size_bytes,
            op,
            volume: 3,
            stream,
            next_vtime: NO_NEXT,
        };
        assert_eq!(
            got,
            vec![r(500_000_000, 8, 8192, Op::Read, 77), r(1_250_000_000, 9, 4096, Op::Write, 78)]
        );
    }

    #[test]
    fn id_column_only_and_literal_comma_delimiter() {
        let got = read_text("ids.csv", "7,x\n9,y\n", "csv:id=1,delim=,").unwrap();
        assert_eq!(got, vec![Request::read(7, 0), Request::read(9, 0)]);
        let spec = CsvSpec::parse("csv:delim=,,id=2,header").unwrap();
        assert_eq!((spec.delimiter, spec.addr, spec.header), (b',', AddrColumn::Id(1), Header::Skip));
        assert_eq!(CsvSpec::parse("csv:id=1,delim=;").unwrap().delimiter, b';');
    }

    #[test]
    fn specs_print_back_to_themselves() {
        for spec in [
            "csv:lbn=5,size=4,op=3,time=2,header,delim=,",
            "csv:header,delim=tab,time=1,volume=2,stream=3,op=4,lbn=5,size=6,unit=4096,size-unit=4096,time-unit=s",
            "csv:id=1,delim=;",
            "csv:id=3,op=1,read=0,write=1|2,other=9,delim=space",
            "csv:cloudphysics",
            "csv:cloudphysics,unit=4096",
            "csv:pagelab-objects",
        ] {
            let parsed = CsvSpec::parse(spec).unwrap();
            let printed = parsed.to_spec();
            assert_eq!(CsvSpec::parse(&printed).unwrap(), parsed, "{spec} printed as {printed}");
        }
        assert_eq!(CsvSpec::parse("cloudphysics").unwrap().to_spec(), "csv:cloudphysics");
        assert_eq!(
            CsvSpec::parse("csv:lbn=5,size=4,op=3,time=2,header,delim=,").unwrap().to_spec(),
            "csv:header,lbn=5,time=2,size=4,op=3,unit=512,size-unit=1,time-unit=ns,read=r|read,write=w|write,other=,delim=,"
        );
        let moved = CsvSpec::parse("csv:pagelab,size=6,stream=3").unwrap();
        assert_eq!(moved.header, Header::Skip);
        assert_eq!(CsvSpec::parse(&moved.to_spec()).unwrap(), moved);
    }

    #[test]
    fn preset_overrides() {
        let spec = CsvSpec::parse("csv:cloudphysics,unit=4096").unwrap();
        assert_eq!((spec.unit_bytes, &spec.header), (4096, &Header::Expect(CLOUDPHYSICS_HEADER.into())));
        let spec = CsvSpec::parse("csv:cloudphysics,size=1").unwrap();
        assert_eq!(
            (spec.size, &spec.header),
            (Some(0), &Header::Skip),
            "a remapped preset only skips its header"
        );
    }

    /// A key the user gives twice is refused as `name:key=value` specs refuse it (the last used to win in
    /// silence: `csv:lbn=1,lbn=2` read column 2), and so are both address columns; a preset's own items are
    /// still overridden.
    #[test]
    fn a_repeated_key_is_refused_but_a_preset_is_adjusted() {
        let err = |s: &str| CsvSpec::parse(s).unwrap_err().to_string();
        assert_eq!(err("csv:lbn=1,lbn=2"), "csv spec `csv:lbn=1,lbn=2`: `lbn` is given twice");
        assert_eq!(
            err("csv:cloudphysics,unit=4096,unit=512"),
            "csv spec `csv:cloudphysics,unit=4096,unit=512`: `unit` is given twice"
        );
        assert_eq!(
            err("csv:header,id=1,header"),
            "csv spec `csv:header,id=1,header`: `header` is given twice"
        );
        assert_eq!(
            err("csv:lbn=1,id=2"),
            "csv spec `csv:lbn=1,id=2`: both `lbn` and `id` given: choose one address column"
        );
        assert_eq!(CsvSpec::parse("csv:pagelab,id=2").unwrap().addr, AddrColumn::Id(1));
        assert_eq!(CsvSpec::parse("csv:cloudphysics,unit=4096").unwrap().unit_bytes, 4096);
    }

    #[test]
    fn spec_errors_name_the_bad_item() {
        let err = |s: &str| CsvSpec::parse(s).unwrap_err().to_string();
        assert_eq!(
            err("csv:lbn=5,colour=2"),
            format!("csv spec `csv:lbn=5,colour=2`: unknown key `colour`: expected {KEYS}")
        );
        assert_eq!(
            err("csv:lbn=0"),
            "csv spec `csv:lbn=0`: bad `lbn=0`: expected a 1-based column number in 1..=256"
        );
        assert_eq!(err("csv:size=2"), "csv spec `csv:size=2`: no address column: give `lbn=N` or `id=N`");
        assert_eq!(err("csv:lbn=1,time=2,time-unit=h"), "csv spec `csv:lbn=1,time=2,time-unit=h`: bad `time-unit=h`: expected one of ns, us, ms, s, 100ns (Windows filetime ticks)");
        assert_eq!(
            err("csv:lbn=1,header=yes"),
            "csv spec `csv:lbn=1,header=yes`: `header` is a flag and takes no value"
        );
        assert_eq!(err("csv:lbn=1,op"), "csv spec `csv:lbn=1,op`: `op` needs a value (op=…)");
        assert_eq!(
            err("csv:lbn=1,delim=ab"),
            "csv spec `csv:lbn=1,delim=ab`: expected `,` after `delim`, found `b`"
        );
        assert_eq!(
            err("csv:lbn=1,cloudphysics"),
            "csv spec `csv:lbn=1,cloudphysics`: preset `cloudphysics` must be the first item"
        );
        assert_eq!(
            err("csv:lbn=1,unit=0"),
            "csv spec `csv:lbn=1,unit=0`: bad `unit=0`: expected a positive number of bytes"
        );
    }

    #[test]
    fn malformed_records() {
        let form = "time=2,op=3,size=4,lbn=5 (1-based columns separated by ',')";
        let bad = |text: &str| bad_record("c.csv", text.as_bytes(), "csv:cloudphysics");
        let e =
            |line: u64, text: &str, expected: String| ("c.csv".to_string(), line, text.to_string(), expected);
        assert_eq!(
            bad("version,time,op,size,lbn\n1,5,28,512,12x\n"),
            e(2, "1,5,28,512,12x", format!("an unsigned integer for lbn in `{form}`"))
        );
        assert_eq!(
            bad("version,time,op,size,lbn\n1,5,28,512\n"),
            e(2, "1,5,28,512", format!("at least 5 fields: {form}, found 4"))
        );
        assert_eq!(
            bad("version,time,op,size,lbn\n1,5,28,512,1\n1,6,35,512,1\n"),
            e(3, "1,6,35,512,1", format!("an op value (read: 28; write: 2a; other: -) for op in `{form}`"))
        );
        assert_eq!(
            bad("version,time,op,size,lbn\n1,-5,28,512,1\n"),
            e(2, "1,-5,28,512,1", format!("a non-negative decimal number for time in `{form}`"))
        );
        assert_eq!(
            bad("version,time,op,size,lbn\n1,5,28,4294967296,1\n"),
            e(2, "1,5,28,4294967296,1", format!("an unsigned integer (bytes < 2^32) for size in `{form}`"))
        );
        assert_eq!(
            bad("time,op,size,lbn\n"),
            e(1, "time,op,size,lbn", "the header `version,time,op,size,lbn`".into())
        );
    }

    #[test]
    fn skip_bad_lines_keeps_the_good_ones() {
        let text = b"version,time,op,size,lbn\n1,5,28,512,1\n1,6,99,512,2\nbroken\n1,7,2a,512,3\n";
        let (requests, skipped, ignored) = read_bytes("c.csv", text, "csv:cloudphysics", true).unwrap();
        assert_eq!(requests.iter().map(|r| r.addr).collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!((skipped, ignored), (2, 0), "the header is not an ignored record");
    }
}

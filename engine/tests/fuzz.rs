//! A time-boxed fuzz run over the engine's parsers of untrusted input (issue 31): FENs of
//! the four built-in variants, UCI input (the line reader and command lines), variant specs
//! (parse, compile and the playability checks) and network files (kage's and
//! Fairy-Stockfish's). Each target draws proptest
//! cases for `KAGE_FUZZ_SECS` seconds (default 3; `.ci/run` gives more), from random bytes
//! and from mutations of real inputs (valid FENs, the built-in specs, the shipped nets), and
//! checks every case for
//! - panics (the input is reported);
//! - the largest single allocation: at most `max(64 x input length, 4 MiB)`. The parsers
//!   build what they read (a network's weights widen i8 to at most i32, 4x; a game keeps a
//!   position of about 400 bytes per move of at least 5 characters, 80x at worst but only
//!   for legal moves, which random input rarely is), and the floor covers the fixed tables
//!   a compiled variant and a search hold (a few tens of KiB each); what must not happen is an
//!   allocation sized by a number the input states (a length field, a count);
//! - hangs: a case running longer than [`CASE_LIMIT`] fails the target, and one running
//!   longer than [`HANG_LIMIT`] aborts the whole run, naming the target and case.
//!
//! The run is deterministic: case `n` of a target is the same on every machine (`KAGE_FUZZ_SEED`
//! changes the sequence); a faster machine only runs more of them.
//! (`engine/fuzz/` holds cargo-fuzz targets for the FEN, move and spec parsers; `parsers.rs`
//! a fixed number of round-trip cases.)

mod common;
mod fuzz_support;

use common::{mutate, mutate_bytes};
use fuzz_support::{budget, largest_allocation};
use kage_engine::nnue::Network;
use kage_engine::nnue::fsf::{self, FsfLayout, FsfNet};
use kage_engine::protocol::uci::{Uci, read_line};
use kage_engine::{Position, Variant, VariantId, VariantSpec};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The longest one case may take (a loaded two-core machine included).
const CASE_LIMIT: Duration = Duration::from_secs(10);
/// A case this long is a hang: the run is aborted (a hung case cannot be unwound).
const HANG_LIMIT: Duration = Duration::from_secs(60);
/// The allocation floor (see the module documentation).
const ALLOC_FLOOR: usize = 4 << 20;
/// The allocation per input byte (see the module documentation).
const ALLOC_PER_BYTE: usize = 64;

// ---------------------------------------------------------------------------------------
// The harness.

fn runner() -> TestRunner {
    let seed = std::env::var("KAGE_FUZZ_SEED").ok().and_then(|s| s.parse::<u64>().ok());
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.unwrap_or(31).to_le_bytes());
    TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// A watchdog for one target: aborts the process when a case outlives [`HANG_LIMIT`].
struct Watchdog {
    /// Milliseconds since `base` at which the running case started (0: none running).
    started: Arc<AtomicU64>,
    case: Arc<Mutex<String>>,
    base: Instant,
}

impl Watchdog {
    fn new(target: &'static str) -> Watchdog {
        let started = Arc::new(AtomicU64::new(0));
        let case = Arc::new(Mutex::new(String::new()));
        let base = Instant::now();
        let (s, c) = (Arc::clone(&started), Arc::clone(&case));
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                if Arc::strong_count(&s) == 1 {
                    return; // the target is done
                }
                let t = s.load(Ordering::Relaxed);
                let now = base.elapsed().as_millis() as u64;
                if t != 0 && now.saturating_sub(t) > HANG_LIMIT.as_millis() as u64 {
                    let case = c.lock().map(|c| c.clone()).unwrap_or_default();
                    eprintln!("fuzz {target}: case {case} hangs (over {HANG_LIMIT:?}); aborting");
                    std::process::abort();
                }
            }
        });
        Watchdog { started, case, base }
    }

    fn begin(&self, case: String) {
        if let Ok(mut c) = self.case.lock() {
            *c = case;
        }
        self.started.store((self.base.elapsed().as_millis() as u64).max(1), Ordering::Relaxed);
    }

    fn end(&self) {
        self.started.store(0, Ordering::Relaxed);
    }
}

/// A short description of an input for failure messages.
fn describe<T: Debug>(input: &T) -> String {
    let s = format!("{input:?}");
    if s.len() <= 400 { s } else { format!("{}... ({} characters)", &s[..400], s.len()) }
}

/// Runs `check` on cases of `strategy` for the time budget; `check` returns the size in bytes
/// of the input it parsed (for the allocation bound). Returns the number of cases run.
fn fuzz<T: Debug>(
    target: &'static str,
    strategy: impl Strategy<Value = T>,
    check: impl Fn(&T) -> usize,
) -> u64 {
    let mut runner = runner();
    let watchdog = Watchdog::new(target);
    let (start, budget) = (Instant::now(), budget());
    let mut cases = 0u64;
    while cases == 0 || start.elapsed() < budget {
        let input = strategy.new_tree(&mut runner).expect("a case").current();
        watchdog.begin(format!("{cases}"));
        let t = Instant::now();
        let (result, largest) = largest_allocation(|| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(&input)))
        });
        let took = t.elapsed();
        watchdog.end();
        let len = match result {
            Ok(len) => len,
            Err(_) => panic!("fuzz {target}: case {cases} panicked on {}", describe(&input)),
        };
        let bound = (ALLOC_PER_BYTE * len).max(ALLOC_FLOOR);
        assert!(
            largest <= bound,
            "fuzz {target}: case {cases} allocated {largest} bytes at once (bound {bound}) on {}",
            describe(&input)
        );
        assert!(
            took < CASE_LIMIT,
            "fuzz {target}: case {cases} took {took:?} on {}",
            describe(&input)
        );
        cases += 1;
    }
    eprintln!("fuzz {target}: {cases} cases in {:.1} s", start.elapsed().as_secs_f64());
    cases
}

/// Byte edits: anywhere, any operation, a byte from `alphabet` or any byte.
fn edits(alphabet: &'static [u8], max: usize) -> impl Strategy<Value = Vec<(usize, u8, u8)>> {
    let byte = prop_oneof![3 => prop::sample::select(alphabet), 1 => any::<u8>()];
    prop::collection::vec((any::<usize>(), any::<u8>(), byte), 1..=max)
}

fn variant(i: usize) -> &'static Variant {
    Variant::builtin(VariantId::ALL[i % VariantId::ALL.len()])
}

// ---------------------------------------------------------------------------------------
// FEN.

/// Valid FENs of each variant: the start position and the bench's middlegames.
fn fens() -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = (0..4).map(|i| (i, variant(i).start_fen.clone())).collect();
    for (name, fen) in kage_engine::search::bench::positions() {
        if let Some(i) = VariantId::ALL.iter().position(|v| v.name() == name)
            && fen != "startpos"
        {
            out.push((i, fen.to_string()));
        }
    }
    out
}

const FEN_ALPHABET: &[u8] = b"pnbrqkPNBRQKJDFCLHMSGjdfclhmsg+/[]-0123456789 wbKQkq@e3a";

/// Parses `text` as a FEN of variant `vi`; what parses prints a FEN that parses to itself.
fn check_fen(vi: usize, text: &str) -> usize {
    let v = variant(vi);
    if let Ok(p) = Position::from_fen(v, text) {
        let again = Position::from_fen(v, &p.to_fen()).expect("a printed FEN parses");
        assert_eq!(again.to_fen(), p.to_fen());
        let _ = p.legal_moves();
    }
    text.len()
}

#[test]
fn fuzz_fen() {
    let valid = fens();
    let n = valid.len();
    let mutated = (0..n, edits(FEN_ALPHABET, 6)).prop_map(move |(i, e)| {
        let (vi, fen) = &valid[i];
        (*vi, mutate(fen, &e))
    });
    let random = (0usize..4, prop::collection::vec(any::<u8>(), 0..120))
        .prop_map(|(vi, b)| (vi, String::from_utf8_lossy(&b).into_owned()));
    let strategy = prop_oneof![4 => mutated, 1 => random];
    assert!(fuzz("fen", strategy, |(vi, fen)| check_fen(*vi, fen)) > 0);
}

// ---------------------------------------------------------------------------------------
// UCI.

/// Reads `bytes` as UCI input, line by line, to its end.
fn check_read_lines(bytes: &[u8]) -> usize {
    let mut input = std::io::Cursor::new(bytes);
    let mut lines = 0;
    while let Some(line) = read_line(&mut input).expect("reading memory") {
        if let Ok(l) = line {
            assert!(!l.contains('\n'));
        }
        lines += 1;
        assert!(lines <= bytes.len(), "more lines than bytes");
    }
    bytes.len()
}

#[test]
fn fuzz_uci_line_reader() {
    let alphabet: &[u8] = b"ab \n\r\n\xff\xfe\xc3\xa9go";
    let strategy = prop::collection::vec(
        prop_oneof![3 => prop::sample::select(alphabet), 1 => any::<u8>()],
        0..400,
    );
    assert!(fuzz("uci-line-reader", strategy, |b| check_read_lines(b)) > 0);
}

/// A UCI input line: a command the engine knows with plausible arguments, mutated.
fn uci_line() -> impl Strategy<Value = String> {
    let command = prop_oneof![
        2 => (0usize..4, any::<u64>(), 0usize..40)
            .prop_map(|(vi, seed, plies)| playout(vi, seed, plies)),
        1 => prop::sample::select(fens()).prop_map(|(_, fen)| format!("position fen {fen}")),
        3 => prop::sample::select(vec![
            "setoption name UCI_Variant value minishogi",
            "setoption name UCI_Variant value gorogoroplus",
            "setoption name UCI_Variant value shinobi",
            "setoption name UCI_Variant value shinobiplus",
            "setoption name MultiPV value 3",
            "setoption name Use NNUE value false",
            "setoption name Use NNUE value true",
            "go depth 1",
            "go nodes 300",
            "go movetime 5",
            "go perft 2",
            "go wtime 50 btime 50 winc 0 binc 0",
            "d",
            "eval",
            "isready",
            "ucinewgame",
            "uci",
            "stop",
        ])
        .prop_map(str::to_owned),
    ];
    (command, edits(b" -0123456789abcdefghq@+/[]wmovesfenstartpos", 3)).prop_map(|(c, e)| {
        let line = mutate(&c, &e);
        // Lines that only ask for resources (a hash table, a file, a long search) are the
        // caller's requests, not parsing: keep them out.
        let asks = ["hash", "evalfile", "infinite", "ponder"];
        let lower = line.to_ascii_lowercase();
        if asks.iter().any(|a| lower.contains(a)) { "isready".to_owned() } else { line }
    })
}

/// `position startpos moves ...` after `plies` random legal moves of variant `vi`.
fn playout(vi: usize, seed: u64, plies: usize) -> String {
    let mut pos = Position::startpos(variant(vi));
    let mut moves = Vec::new();
    let mut x = seed | 1;
    for _ in 0..plies {
        let list = pos.legal_moves();
        if list.is_empty() {
            break;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = list.as_slice()[(x % list.len() as u64) as usize];
        moves.push(pos.move_to_uci(m));
        pos.play(m);
    }
    format!("position startpos moves {}", moves.join(" "))
}

#[test]
fn fuzz_uci_commands() {
    // One session for the whole run (its hash table is allocated once, outside the cases);
    // searches write to a sink.
    let mut uci = Uci::new(variant(0), None);
    uci.set_search_output(Arc::new(Mutex::new(std::io::sink())));
    let warm = Mutex::new(uci);
    for l in ["setoption name UCI_Variant value minishogi", "position startpos", "go depth 1"] {
        warm.lock().expect("session").handle(l, &mut Vec::new()).expect("io");
    }
    warm.lock().expect("session").wait();
    let strategy = prop::collection::vec(uci_line(), 1..6);
    let cases = fuzz("uci-commands", strategy, |lines| {
        let mut uci = warm.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = Vec::new();
        for l in lines {
            uci.handle(l, &mut out).expect("writing to memory");
        }
        uci.handle("stop", &mut out).expect("writing to memory");
        uci.wait();
        lines.iter().map(|l| l.len() + 1).sum()
    });
    assert!(cases > 0);
}

// ---------------------------------------------------------------------------------------
// Variant specs.

const SPECS: [&str; 5] = [
    include_str!("../variants/shinobiplus/rules.toml"),
    include_str!("../variants/shinobi/rules.toml"),
    include_str!("../variants/gorogoroplus/rules.toml"),
    include_str!("../variants/minishogi/rules.toml"),
    include_str!("fixtures/capturedense.toml"),
];

/// Compiled variants are leaked (they live as long as the program): at most this many go
/// through the whole of `Variant::from_spec_text` (start position and playability checks).
const MAX_LEAKED: u64 = 300;

fn check_spec(text: &str, leaked: &AtomicU64) -> usize {
    if let Ok(spec) = VariantSpec::parse(text)
        && Variant::compile(&spec).is_ok()
        && leaked.fetch_add(1, Ordering::Relaxed) < MAX_LEAKED
        && let Ok(v) = Variant::from_spec_text(text)
    {
        let start = Position::startpos(v);
        assert_eq!(
            Position::from_fen(v, &start.to_fen()).expect("start FEN").to_fen(),
            start.to_fen()
        );
        let _ = start.legal_moves();
    }
    text.len()
}

#[test]
fn fuzz_variant_specs() {
    let alphabet: &[u8] = b"=\"[]{}0123456789abfKRWNQ+,.-_/\n #";
    let mutated = (0..SPECS.len(), edits(alphabet, 5)).prop_map(|(i, e)| mutate(SPECS[i], &e));
    let random = prop::collection::vec(any::<u8>(), 0..300)
        .prop_map(|b| String::from_utf8_lossy(&b).into_owned());
    let leaked = AtomicU64::new(0);
    let strategy = prop_oneof![6 => mutated, 1 => random];
    assert!(fuzz("variant-spec", strategy, |t| check_spec(t, &leaked)) > 0);
}

// ---------------------------------------------------------------------------------------
// Network files.

const NETS: [&[u8]; 2] =
    [include_bytes!("../nets/shinobi.nnue"), include_bytes!("../nets/shinobiplus.nnue")];

/// Preamble length of a sealed file (magic, version, length, checksum).
const PREAMBLE: usize = kage_engine::util::bytes::SEALED_PREAMBLE;

/// How a net's bytes are damaged: raw edits (the checksum fails), edits of the body with the
/// seal recomputed (the body parser sees them), or a truncation.
#[derive(Debug, Clone)]
enum NetDamage {
    Raw(Vec<(usize, u8, u8)>),
    Resealed(Vec<(usize, u8, u8)>),
    Truncated(usize),
}

fn damaged(base: &[u8], d: &NetDamage) -> Vec<u8> {
    match d {
        NetDamage::Raw(e) => mutate_bytes(base, e),
        NetDamage::Resealed(e) => {
            // Edits mostly in the header fields of the body (dimensions, lengths).
            let body = &base[PREAMBLE..];
            let near: Vec<_> = e.iter().map(|&(p, o, b)| (p % 160, o, b)).collect();
            let body = mutate_bytes(body, if e.len() % 2 == 0 { &near } else { e });
            let mut magic = [0u8; 8];
            magic.copy_from_slice(&base[..8]);
            let version = u32::from_le_bytes(base[8..12].try_into().expect("4 bytes"));
            kage_engine::util::bytes::seal(&magic, version, &body)
        }
        NetDamage::Truncated(n) => base[..n % base.len()].to_vec(),
    }
}

fn check_net(bytes: &[u8]) -> usize {
    if let Ok(net) = Network::load(bytes) {
        assert_eq!(Network::load(&net.to_bytes()).expect("reloads").to_bytes(), net.to_bytes());
        for id in VariantId::ALL {
            let _ = Network::load_for_variant(bytes, Variant::builtin(id));
        }
    }
    bytes.len()
}

#[test]
fn fuzz_net_files() {
    let edit = (any::<usize>(), any::<u8>(), any::<u8>());
    let damage = prop_oneof![
        1 => prop::collection::vec(edit, 1..4).prop_map(NetDamage::Raw),
        3 => prop::collection::vec(edit, 1..4).prop_map(NetDamage::Resealed),
        1 => any::<usize>().prop_map(NetDamage::Truncated),
    ];
    let mutated = (0..NETS.len(), damage).prop_map(|(i, d)| damaged(NETS[i], &d));
    let random = prop::collection::vec(any::<u8>(), 0..200).prop_map(|mut b| {
        // Half of them past the magic.
        if b.len() > 8 && b[0] % 2 == 0 {
            b[..8].copy_from_slice(b"KAGENNUE");
        }
        b
    });
    let strategy = prop_oneof![4 => mutated, 1 => random];
    assert!(fuzz("net-file", strategy, |b| check_net(b)) > 0);
}

// ---------------------------------------------------------------------------------------
// Fairy-Stockfish-format nets.

/// A seeded random minishogi net in FSF's format (the smallest of the four variants').
fn fsf_base() -> (&'static FsfLayout, &'static [u8]) {
    static BASE: std::sync::OnceLock<(FsfLayout, Vec<u8>)> = std::sync::OnceLock::new();
    let (layout, bytes) = BASE.get_or_init(|| {
        let layout = FsfLayout::for_variant(variant(3)).expect("minishogi has an FSF layout");
        let bytes = fsf::random_net(&layout, 11).to_bytes().expect("a random net writes");
        (layout, bytes)
    });
    (layout, bytes)
}

/// How an FSF net's bytes are damaged: edits near the start (version, hashes, description
/// length, description), edits anywhere (replacements keep the size: the weights and the
/// layer stacks' hashes), a description length changed with the bytes to match (the parser
/// gets past the size check to the hashes), or a truncation.
#[derive(Debug, Clone)]
enum FsfDamage {
    Header(Vec<(usize, u8, u8)>),
    Anywhere(Vec<(usize, u8, u8)>),
    Described(i8),
    Truncated(usize),
}

fn fsf_damaged(base: &[u8], d: &FsfDamage) -> Vec<u8> {
    match d {
        FsfDamage::Header(e) => {
            let near: Vec<_> = e.iter().map(|&(p, o, b)| (p % 96, o, b)).collect();
            mutate_bytes(base, &near)
        }
        FsfDamage::Anywhere(e) => {
            let replace: Vec<_> = e.iter().map(|&(p, _, b)| (p, 0, b)).collect();
            mutate_bytes(base, &replace)
        }
        FsfDamage::Described(delta) => {
            let desc = u32::from_le_bytes(base[8..12].try_into().expect("4 bytes"));
            let new = desc.saturating_add_signed(i32::from(*delta));
            let mut b = base[..8].to_vec();
            b.extend_from_slice(&new.to_le_bytes());
            let text = &base[12..12 + desc as usize];
            b.extend((0..new as usize).map(|i| text.get(i).copied().unwrap_or(b'x')));
            b.extend_from_slice(&base[12 + desc as usize..]);
            b
        }
        FsfDamage::Truncated(n) => base[..n % base.len()].to_vec(),
    }
}

fn check_fsf_net(layout: &FsfLayout, bytes: &[u8]) -> usize {
    if let Ok(net) = FsfNet::from_bytes(bytes, layout) {
        // What is accepted is written back byte for byte.
        assert_eq!(net.to_bytes().expect("writes"), bytes);
    }
    let _ = fsf::guess_variant(bytes);
    bytes.len()
}

#[test]
fn fuzz_fsf_net_files() {
    let (layout, base) = fsf_base();
    let edit = (any::<usize>(), any::<u8>(), any::<u8>());
    let damage = prop_oneof![
        3 => prop::collection::vec(edit, 1..4).prop_map(FsfDamage::Header),
        1 => prop::collection::vec(edit, 1..4).prop_map(FsfDamage::Anywhere),
        1 => any::<i8>().prop_map(FsfDamage::Described),
        1 => any::<usize>().prop_map(FsfDamage::Truncated),
    ];
    let mutated = damage.prop_map(move |d| fsf_damaged(base, &d));
    let random = prop::collection::vec(any::<u8>(), 0..200).prop_map(move |mut b| {
        // Half of them with the real version and network hash.
        if b.len() > 8 && b[0] % 2 == 0 {
            b[..8].copy_from_slice(&base[..8]);
        }
        b
    });
    let strategy = prop_oneof![4 => mutated, 1 => random];
    assert!(fuzz("fsf-net-file", strategy, |b| check_fsf_net(layout, b)) > 0);
}

// ---------------------------------------------------------------------------------------
// The harness itself: what it must catch, it catches.

#[test]
#[should_panic(expected = "allocated 16777216 bytes at once")]
fn the_harness_catches_an_allocation_out_of_proportion_to_the_input() {
    fuzz("self-test-alloc", Just(vec![0u8; 4]), |b| {
        std::hint::black_box(Vec::<u8>::with_capacity(16 << 20));
        b.len()
    });
}

#[test]
#[should_panic(expected = "panicked on [1, 2]")]
fn the_harness_reports_the_input_of_a_panic() {
    fuzz("self-test-panic", Just(vec![1u8, 2]), |b| {
        assert!(b.is_empty(), "a parser panics");
        0
    });
}

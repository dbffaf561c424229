//! `memlayers serve`: an opt-in resident process for one data root that answers the CLI's
//! queries, and the client side every CLI query runs first ([`forward`]). docs/server.md
//! describes it for users.
//!
//! Why: an agent runs one `memlayers` process per call. In-process, every call opens the index
//! (schema parse, statements compiled anew), and an unwindowed call states every day file to
//! see whether one was edited by hand. A resident server keeps the index open with its
//! prepared statements and learns of file changes from its watch (inotify on Linux), as git's
//! fsmonitor daemon does for `git status`; a call then costs the process start, one
//! Unix-socket exchange and the query itself.
//!
//! Opt-in ([`Mode`], the environment variable [`SERVER_ENV`]): by default (`auto`) a query uses
//! a server already running for its data root and never starts one; `spawn` also starts one
//! (`serve --idle-exit 600`) after a query none answered, and says so on stderr; `off` never
//! uses one; `require` fails (exit 1) when no server answers, saying why.
//!
//! Where: the socket is `<runtime dir>/<16 hex digits of the SHA-1 of the data root's canonical
//! path>.sock`, where the runtime dir is `$XDG_RUNTIME_DIR/memlayers` or, without that
//! variable, `<temp dir>/memlayers-<uid>`: a folder created mode 0700 by the server (so the
//! socket is private from its creation; umask can only remove bits) and used by either side only
//! when it is a real folder, owned by this user, with no access for anyone else. Nothing of the
//! server's is written into the data root. Both sides check the peer's user id on the
//! connection (SO_PEERCRED / getpeereid, through tokio).
//!
//! Protocol (one exchange per connection, each message one JSON line, UTF-8):
//! 1. client → server `Request`: protocol version, the crate version, the identity of the
//!    client's executable file ([`ExeId`]), the operation (`call`, `status`, `stop`), the data
//!    root the client resolved, its whole command line and working directory;
//! 2. server → client: `{"decline": why}` when the call is not the server's to answer (another
//!    binary, another data root, options that change what the call means), after which the
//!    client runs the call itself; or `{"ready": true}` once the call was parsed and accepted;
//! 3. client → server `go`: sent only while the client still waits; the server runs nothing
//!    before it (a client that gave up never has its call run by the server as well);
//! 4. server → client [`Outcome`] (`{"code", "stdout", "stderr"}`), printed as is.
//!
//! A server whose client runs another executable (other bytes: another crate version, or the
//! same version rebuilt) declines, removes its socket and exits; so does a server whose
//! executable file was replaced on disk (checked every [`LOST_CHECK`]). Every wait of the
//! client is bounded ([`CONNECT_TIMEOUT`], [`READY_TIMEOUT`], [`REPLY_TIMEOUT`], reply size
//! [`MAX_REPLY_BYTES`]); every connection of the server is its own task, with bounded reads and
//! writes, so no peer holds up another call, a signal, the idle exit or the checks.

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

use super::{Cli, Cmd, Outcome, layers::LayerCmd};
use crate::{Error, Memory, Result};

/// Environment variable choosing whether CLI queries use a server: `auto` (default), `spawn`,
/// `off`, `require` ([`Mode`]).
pub const SERVER_ENV: &str = "MEMLAYERS_SERVER";

/// What a CLI query does about a server, read from [`SERVER_ENV`] by [`mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The default (unset or empty; an unknown value too, with a warning): use a server that
    /// already runs for the data root; never start one.
    Auto,
    /// As [`Mode::Auto`], and when no server answers a query, start `memlayers serve
    /// --idle-exit 600` in the background after the call ran in-process (said on stderr).
    Spawn,
    /// Never use a server: every call runs in-process.
    Off,
    /// A query no server answered fails with exit 1, saying why.
    Require,
}

impl Mode {
    /// The mode a value of [`SERVER_ENV`] names (`None`: unset); `Err` carries the default an
    /// unknown value reads as.
    fn parse(value: Option<&str>) -> std::result::Result<Mode, Mode> {
        match value {
            None | Some("" | "auto") => Ok(Mode::Auto),
            Some("spawn") => Ok(Mode::Spawn),
            Some("off") => Ok(Mode::Off),
            Some("require") => Ok(Mode::Require),
            Some(_) => Err(Mode::Auto),
        }
    }
}

/// This process's [`Mode`], read from [`SERVER_ENV`] once. An unknown value (or one that is
/// not UTF-8) warns on stderr, once, and reads as the default, [`Mode::Auto`].
pub fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        let raw = std::env::var_os(SERVER_ENV);
        let text = raw.as_ref().map(|v| v.to_str().unwrap_or("\u{fffd}"));
        Mode::parse(text).unwrap_or_else(|default| {
            eprintln!(
                "warning: {SERVER_ENV}={:?} is not auto, spawn, off or require; read as auto, the default \
                 (a running server is used, none is started)",
                raw.as_deref().unwrap_or_default().to_string_lossy()
            );
            default
        })
    })
}

/// Protocol version of the request line (1 was the socket in the data root, without `go`).
const PROTOCOL: u32 = 2;

/// The crate version a server and its clients must share.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Longest request line the server reads, in bytes: a command line is at most a few KiB (a
/// query is capped at 2 000 chars); anything longer is not a client of ours.
const MAX_REQUEST_BYTES: u64 = 1 << 20;

/// Longest reply line a client reads, in bytes (16 MiB): far above any query's JSON (a recall
/// of 50 entries of at most 4 000 chars each with `--explain`, a hot-get of a large hot.md); a
/// longer one is not from a server of ours.
pub const MAX_REPLY_BYTES: u64 = 16 << 20;

/// How long a client waits to connect. A Unix-socket connect does not wait on Linux (a full
/// listen queue fails at once with `EAGAIN`); the bound is for systems where it may.
pub const CONNECT_TIMEOUT: Duration = Duration::from_millis(200);

/// How long a client waits for `ready` after sending its request: the server parses and
/// checks a call in well under a millisecond, so past this bound it is stopped (SIGSTOP, a
/// debugger), or busy with another long call; the call then runs in-process, where it takes
/// 2–15 ms at 1M entries.
pub const READY_TIMEOUT: Duration = Duration::from_millis(1000);

/// How long a client waits for the result once the server started its call: far above any
/// query's time (milliseconds; seconds for the first call after a 100 MB usage.json edit),
/// short enough not to hang an agent for good.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

/// How long either side waits to write one message, and the server for a request line or a
/// `go`: a peer of ours writes and reads at once.
const IO_TIMEOUT: Duration = Duration::from_secs(2);

/// How long `serve --stop` waits for the server to confirm it stopped (it writes its pending
/// usage hits first).
const STOP_TIMEOUT: Duration = Duration::from_secs(10);

/// Most connections a server serves at once; further ones are closed at once (their clients
/// run in-process). Each costs a descriptor and a task that ends within [`IO_TIMEOUT`]s.
const MAX_CONNECTIONS: usize = 64;

/// Seconds a server started by [`Mode::Spawn`] waits for a call before it exits.
pub const SPAWN_IDLE_EXIT_SECS: u64 = 600;

/// How often a server checks that its data root, socket, config file, index and executable
/// are still the ones it started with.
pub const LOST_CHECK: Duration = Duration::from_secs(1);

/// Exit code of `serve --status` and `serve --stop` when no server runs for the data root
/// (as an LSB init script's `status` says "not running").
pub const EXIT_NOT_RUNNING: i32 = 3;

// ---------------------------------------------------------------------------------------------
// Identity of the executable, runtime folder, socket path.

/// Identity of an executable file: device, inode, size in bytes, and modification and
/// status-change times (seconds and nanoseconds since the Unix epoch). Replacing the file
/// (a new inode) or changing its bytes (size, mtime; ctime, which no user can set back)
/// changes it, so a server and a client compare it instead of hashing megabytes per call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExeId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl ExeId {
    fn of(m: &std::fs::Metadata) -> ExeId {
        use std::os::unix::fs::MetadataExt;
        ExeId {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }

    /// The identity of the file this process runs (on Linux `/proc/self/exe`, which names the
    /// running file even after its path was replaced); `None` when it cannot be stated.
    pub fn running() -> Option<ExeId> {
        #[cfg(target_os = "linux")]
        let m = std::fs::metadata("/proc/self/exe");
        #[cfg(not(target_os = "linux"))]
        let m = std::env::current_exe().and_then(std::fs::metadata);
        m.ok().map(|m| ExeId::of(&m))
    }
}

/// This process's effective user id.
fn uid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// The folder of this user's server sockets: `$XDG_RUNTIME_DIR/memlayers` when that variable
/// names an absolute path, else `<temp dir>/memlayers-<uid>`. Only a server creates it
/// (`make_private`).
pub fn runtime_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from).filter(|p| p.is_absolute()) {
        Some(d) => d.join("memlayers"),
        None => std::env::temp_dir().join(format!("memlayers-{}", uid())),
    }
}

/// Checks that `dir` is a folder (not a symbolic link) owned by this user with no access for
/// group or others; the error says what is wrong.
fn check_private(dir: &Path) -> std::result::Result<(), String> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let m = std::fs::symlink_metadata(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if !m.is_dir() {
        return Err(format!("{} is not a folder", dir.display()));
    }
    if m.uid() != uid() {
        return Err(format!("{} belongs to user {}, not to this user ({})", dir.display(), m.uid(), uid()));
    }
    if m.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "{} is open to other users (mode {:o}; a server's folder is 0700)",
            dir.display(),
            m.permissions().mode() & 0o7777
        ));
    }
    Ok(())
}

/// Creates `dir` mode 0700 (the parent must exist) unless it exists, then [`check_private`].
fn make_private(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(Error::io(dir, e)),
    }
    check_private(dir).map_err(|why| Error::bad("serve", format!("{why}: not used for the server's socket")))
}

/// The socket path of the data root `root` (which must exist: its canonical path is hashed).
pub fn socket_path(root: &Path) -> std::io::Result<PathBuf> {
    let canonical = std::fs::canonicalize(root)?;
    let hex = crate::index::sync::sha1_hex(canonical.as_os_str().as_encoded_bytes());
    Ok(runtime_dir().join(format!("{}.sock", &hex[..16])))
}

/// Longest Unix socket path (`sun_path`: 108 bytes on Linux, 104 on macOS, with its NUL).
const MAX_SOCKET_PATH: usize = 103;

// ---------------------------------------------------------------------------------------------
// Protocol.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Op {
    /// Run a CLI call.
    Call,
    /// Report the server's [`Status`].
    Status,
    /// Stop the server (it writes its pending usage hits first).
    Stop,
}

#[derive(Debug, Serialize, Deserialize)]
struct Request {
    v: u32,
    /// The client's crate version.
    version: String,
    /// The client's executable file.
    exe: Option<ExeId>,
    op: Op,
    /// The data root the client resolved (absolute).
    root: PathBuf,
    #[serde(default)]
    argv: Vec<String>,
    /// The client's working directory: relative paths of its command line (`--data-root`,
    /// `--config`) are resolved against it, not the server's.
    #[serde(default)]
    cwd: Option<PathBuf>,
}

impl Request {
    fn new(op: Op, root: &Path, argv: Vec<String>) -> Request {
        Request {
            v: PROTOCOL,
            version: VERSION.into(),
            exe: ExeId::running(),
            op,
            root: root.to_path_buf(),
            argv,
            cwd: std::env::current_dir().ok(),
        }
    }
}

/// What a server reports to `serve --status` (JSON field names camelCase, as the CLI's).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The server's process id.
    pub pid: u32,
    /// The path of the executable it runs (as it was when it started).
    pub exe: PathBuf,
    /// That executable's identity when the server started.
    pub exe_id: Option<ExeId>,
    /// Its crate version.
    pub version: String,
    /// When it started (UTC, RFC 3339).
    pub started: String,
    /// Whole seconds since its last answered call (or its start).
    pub idle_secs: u64,
    /// `--idle-exit` seconds, if any.
    pub idle_exit_secs: Option<u64>,
    /// Calls answered so far.
    pub calls: u64,
    /// The data root it serves.
    pub root: PathBuf,
    /// Its socket.
    pub socket: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Reply {
    Declined {
        decline: String,
        /// The server exits after this reply (a client of another executable).
        #[serde(default)]
        exiting: bool,
    },
    Ready {
        ready: bool,
    },
    Stopped {
        stopped: u32,
    },
    Status(Status),
    Done(Outcome),
}

/// Reads one line of at most `max` bytes (its newline excluded) as UTF-8; `None` at EOF, on
/// an error, past `max` or on text that is not UTF-8.
async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, max: u64) -> Option<String> {
    let mut buf = Vec::new();
    r.take(max + 1).read_until(b'\n', &mut buf).await.ok()?;
    if buf.pop() != Some(b'\n') {
        return None;
    }
    String::from_utf8(buf).ok()
}

/// Writes `text` and a newline within [`IO_TIMEOUT`]; false when it could not.
async fn write_line<W: AsyncWrite + Unpin>(w: &mut W, text: &str, bound: Duration) -> bool {
    let line = format!("{text}\n");
    matches!(tokio::time::timeout(bound, w.write_all(line.as_bytes())).await, Ok(Ok(())))
}

// ---------------------------------------------------------------------------------------------
// Client.

/// Why a call was not answered by a server (the text says it, for `require` and `--status`).
#[derive(Debug)]
enum Failure {
    /// The data root does not exist: the in-process call reports it (exit 2).
    NoRoot,
    /// No server listens for the data root.
    NoServer(String),
    /// A server of another executable declined and is exiting (as [`Failure::NoServer`] for
    /// [`Mode::Spawn`]).
    OtherBinary(String),
    /// The server declined, is busy or stopped, or the exchange failed before the server
    /// started the call.
    NotAnswered(String),
    /// The server started the call (it said `ready`, the client said `go`) but no reply came
    /// back, or none that is understood: a call that writes is not run a second time.
    Started(String),
}

impl Failure {
    fn why(&self) -> String {
        match self {
            Failure::NoRoot => "the data root does not exist".into(),
            Failure::NoServer(w) | Failure::OtherBinary(w) | Failure::NotAnswered(w) | Failure::Started(w) => w.clone(),
        }
    }
}

/// A current-thread runtime for one client exchange (its timers and socket readiness).
fn client_runtime() -> std::result::Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::NotAnswered(format!("no runtime for the exchange: {e}")))
}

/// One exchange with the server on `socket`: `req` sent, the server's reply read (after the
/// `ready`/`go` handshake for a call), every wait bounded.
fn ask(socket: &Path, req: &Request) -> std::result::Result<Reply, Failure> {
    // No socket file: no server (the common case without one costs one stat, no runtime).
    if std::fs::symlink_metadata(socket).is_err() {
        return Err(Failure::NoServer(format!("no server for this data root (no socket {})", socket.display())));
    }
    if let Some(dir) = socket.parent()
        && let Err(why) = check_private(dir)
    {
        return Err(Failure::NotAnswered(format!("{why}: its socket is not used")));
    }
    client_runtime()?.block_on(exchange(socket, req))
}

async fn exchange(socket: &Path, req: &Request) -> std::result::Result<Reply, Failure> {
    use std::io::ErrorKind;
    let stream = match tokio::time::timeout(CONNECT_TIMEOUT, tokio::net::UnixStream::connect(socket)).await {
        Ok(Ok(s)) => s,
        Ok(Err(e)) if matches!(e.kind(), ErrorKind::ConnectionRefused | ErrorKind::NotFound) => {
            return Err(Failure::NoServer(format!("no server at {}: {e}", socket.display())));
        }
        Ok(Err(e)) if e.kind() == ErrorKind::WouldBlock => {
            return Err(Failure::NotAnswered(format!(
                "the server at {} accepts no connection (its queue is full: stopped or saturated)",
                socket.display()
            )));
        }
        Ok(Err(e)) => return Err(Failure::NotAnswered(format!("cannot connect to {}: {e}", socket.display()))),
        Err(_) => {
            return Err(Failure::NotAnswered(format!(
                "no connection to {} within {} ms",
                socket.display(),
                CONNECT_TIMEOUT.as_millis()
            )));
        }
    };
    let peer = stream.peer_cred().map_err(|e| Failure::NotAnswered(format!("no peer credentials: {e}")))?;
    if peer.uid() != uid() {
        return Err(Failure::NotAnswered(format!(
            "the process on {} runs as user {}, not this user ({}): not used",
            socket.display(),
            peer.uid(),
            uid()
        )));
    }
    let pid = peer.pid().map(|p| format!(" (pid {p})")).unwrap_or_default();
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::new(rd);
    let text = serde_json::to_string(req).map_err(|e| Failure::NotAnswered(e.to_string()))?;
    if !write_line(&mut wr, &text, IO_TIMEOUT).await {
        return Err(Failure::NotAnswered(format!("the server{pid} did not take the request")));
    }
    let first_bound = if req.op == Op::Stop { STOP_TIMEOUT } else { READY_TIMEOUT };
    let first = match tokio::time::timeout(first_bound, read_line(&mut rd, MAX_REPLY_BYTES)).await {
        Ok(Some(line)) => line,
        Ok(None) => return Err(Failure::NotAnswered(format!("the server{pid} closed the connection unanswered"))),
        Err(_) => {
            return Err(Failure::NotAnswered(format!(
                "the server{pid} did not answer within {} ms (stopped or busy)",
                first_bound.as_millis()
            )));
        }
    };
    let reply = serde_json::from_str::<Reply>(&first)
        .map_err(|e| Failure::NotAnswered(format!("the server's reply is not understood: {e}")))?;
    match reply {
        Reply::Declined { decline, exiting: true } => {
            Err(Failure::OtherBinary(format!("the server declined: {decline}")))
        }
        Reply::Declined { decline, .. } => Err(Failure::NotAnswered(format!("the server declined: {decline}"))),
        Reply::Ready { .. } if req.op == Op::Call => {
            if !write_line(&mut wr, "go", IO_TIMEOUT).await {
                return Err(Failure::NotAnswered(format!("the server{pid} went away before the call started")));
            }
            // From here on the server may have run the call.
            match tokio::time::timeout(REPLY_TIMEOUT, read_line(&mut rd, MAX_REPLY_BYTES)).await {
                Ok(Some(line)) => match serde_json::from_str::<Reply>(&line) {
                    Ok(r @ Reply::Done(_)) => Ok(r),
                    _ => Err(Failure::Started(format!("the server{pid}'s reply is not understood"))),
                },
                Ok(None) => Err(Failure::Started(format!(
                    "the server{pid} closed the connection without a reply, or its reply exceeded {} MiB",
                    MAX_REPLY_BYTES >> 20
                ))),
                Err(_) => {
                    Err(Failure::Started(format!("the server{pid} did not reply within {} s", REPLY_TIMEOUT.as_secs())))
                }
            }
        }
        r => Ok(r),
    }
}

/// Sends the call `argv` for `root` to its server; its outcome.
fn call(root: &Path, argv: Vec<String>) -> std::result::Result<Outcome, Failure> {
    if !root.is_dir() {
        return Err(Failure::NoRoot);
    }
    let socket = socket_path(root).map_err(|e| Failure::NoServer(format!("{}: {e}", root.display())))?;
    // Without a socket (the usual case) the request is not even built.
    if std::fs::symlink_metadata(&socket).is_err() {
        return Err(Failure::NoServer(format!("no server for this data root (no socket {})", socket.display())));
    }
    match ask(&socket, &Request::new(Op::Call, root, argv))? {
        Reply::Done(out) => Ok(out),
        _ => Err(Failure::NotAnswered("the server's reply is not a call's".into())),
    }
}

/// The subcommands [`forwardable`] accepts, by their command-line names.
const QUERY_NAMES: [&str; 7] = ["recall", "retrieve", "recent", "by-tag", "by-date", "hot-get", "stats"];

/// True for the commands a server answers: the queries. Writes, imports, syncs, checks,
/// exports and the layer writes run in the calling process, as before.
fn forwardable(cmd: &Cmd) -> bool {
    matches!(
        cmd,
        Cmd::Recall { .. }
            | Cmd::Retrieve { .. }
            | Cmd::Recent { .. }
            | Cmd::ByTag { .. }
            | Cmd::ByDate { .. }
            | Cmd::Layer(LayerCmd::HotGet | LayerCmd::Stats)
    )
}

/// True for the forwarded commands that write more than usage hits: `hot-get` moves expired
/// candidates to the cold layer. Once a server may have run one, it is never run again here.
fn writes(cmd: &Cmd) -> bool {
    matches!(cmd, Cmd::Layer(LayerCmd::HotGet))
}

/// Client side before the command line is parsed: a plain query (no `--config`, `--tz`, help
/// or version flags, no option before the command) is sent as it is to the server of the data
/// root named by `--data-root` (or the default root), and `Some(exit code)` returned when it
/// answered. The server parses the command line itself, so this process skips building its
/// own parser (0.2 ms of a 2.3 ms call). Anything else is `None`: [`main`](super::main) then
/// parses the command line and goes on as usual ([`forward`], which reports what happened
/// here).
pub fn forward_unparsed() -> Option<i32> {
    if mode() == Mode::Off {
        return None;
    }
    let argv: Vec<String> = std::env::args_os().map(|a| a.into_string().ok()).collect::<Option<_>>()?;
    let mut root: Option<PathBuf> = None;
    let mut command = None;
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data-root" => root = Some(PathBuf::from(args.next()?)),
            "--json" => {}
            "--" => return None,
            s if s.starts_with("--data-root=") => root = Some(PathBuf::from(&s["--data-root=".len()..])),
            // --config/--tz change what the call means, help and version are clap's: the
            // parsed path decides. (A --now after the command goes as it is: the server pins
            // it for the call.)
            s if s.starts_with('-') && command.is_none() => return None,
            s if command.is_none() => command = Some(s),
            s if s.starts_with("--config") || s.starts_with("--tz") => return None,
            "--help" | "-h" | "--version" | "-V" => return None,
            _ => {}
        }
    }
    if !QUERY_NAMES.contains(&command?) {
        return None;
    }
    let root = match root {
        Some(r) => r,
        // No root to name (HOME unset): the parsed path reports it.
        None => crate::files::resolve_data_root(
            None,
            std::env::var("DSH_HOME").ok().as_deref(),
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        )
        .ok()?,
    };
    let root = std::path::absolute(root).ok()?;
    match call(&root, argv) {
        Ok(out) => Some(emit(&out)),
        Err(f) => {
            *ASKED.lock().unwrap_or_else(|e| e.into_inner()) = Some((root, f));
            None
        }
    }
}

/// Prints a server's answer as the call's own output; its exit code.
fn emit(out: &Outcome) -> i32 {
    use std::io::Write;
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    out.code
}

/// What [`forward_unparsed`] learnt when no server answered (the root it resolved, and why):
/// [`forward`] reports it instead of asking again.
static ASKED: std::sync::Mutex<Option<(PathBuf, Failure)>> = std::sync::Mutex::new(None);

/// Client side, run by every CLI call before it opens anything: `Some(exit code)` when a
/// running server answered the call (its output is printed here) or when the call must not run
/// here (below), `None` when this process must run the call itself (not a query,
/// `MEMLAYERS_SERVER=off`, no server, the server declined or did not answer in time, the data
/// root does not exist). With `MEMLAYERS_SERVER=require` a query no server answered fails with
/// exit 1 instead, saying why. A call that writes (`hot-get`) which the server started but did
/// not answer fails with exit 1 in every mode: it may have run there. In [`Mode::Spawn`], a
/// query no server answered notes its data root for [`spawn_pending`].
pub fn forward(cli: &Cli) -> Option<i32> {
    let require = match mode() {
        Mode::Off => return None,
        Mode::Require => true,
        Mode::Auto | Mode::Spawn => false,
    };
    // Only queries go to a server; every other command runs here whatever the mode says.
    if !forwardable(&cli.cmd) {
        return None;
    }
    let earlier = ASKED.lock().unwrap_or_else(|e| e.into_inner()).take();
    let (root, sent) = match earlier {
        Some((root, f)) => (Some(root), Err(f)),
        None => match try_forward(cli) {
            Ok((root, sent)) => (Some(root), sent),
            Err(f) => (None, Err(f)),
        },
    };
    if let (Some(root), Err(Failure::NoServer(_) | Failure::OtherBinary(_))) = (&root, &sent)
        && mode() == Mode::Spawn
    {
        *PENDING.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(Pending { root: root.clone(), tz: cli.tz.clone(), config: cli.config.clone() });
    }
    match sent {
        Ok(out) => Some(emit(&out)),
        Err(Failure::NoRoot) => None,
        Err(Failure::Started(why)) if writes(&cli.cmd) => {
            eprintln!(
                "error: the server started this call but did not answer: {why}. It is not run again in this \
                 process, as it writes (hot-get moves expired candidates to the cold layer); run it again \
                 to see the result"
            );
            Some(1)
        }
        Err(f) if require => {
            eprintln!("error: {SERVER_ENV}=require and the call was not answered by a server: {}", f.why());
            Some(1)
        }
        Err(_) => None,
    }
}

/// Sends the parsed call `cli` to its data root's server: the root and the outcome.
fn try_forward(cli: &Cli) -> std::result::Result<(PathBuf, std::result::Result<Outcome, Failure>), Failure> {
    let config = super::load_config(cli).map_err(|e| Failure::NotAnswered(e.to_string()))?;
    // No data root can be named (HOME unset): the in-process call reports it (exit 2).
    let root = super::data_root(cli, &config).map_err(|_| Failure::NoRoot)?;
    let root = std::path::absolute(root).map_err(|e| Failure::NotAnswered(e.to_string()))?;
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.into_string().map_err(|_| Failure::NotAnswered("an argument is not UTF-8".into())))
        .collect::<std::result::Result<_, _>>()?;
    let sent = call(&root, argv);
    Ok((root, sent))
}

/// A server to start once the call has run: the call's data root and its own `--tz` /
/// `--config`, so that the server answers calls made like this one.
struct Pending {
    root: PathBuf,
    tz: Option<String>,
    config: Option<PathBuf>,
}

/// The server [`forward`] found missing in [`Mode::Spawn`], started by [`spawn_pending`].
static PENDING: std::sync::Mutex<Option<Pending>> = std::sync::Mutex::new(None);

/// Run by [`main`](super::main) after a call ran in-process: when [`forward`] found no server
/// for a query in [`Mode::Spawn`], starts `memlayers --data-root ROOT [--tz Z] [--config F]
/// serve --idle-exit 600` in the background for the calls that follow, and says so on stderr
/// (pid, socket, how to stop it). Every descriptor this process inherited is first marked
/// close-on-exec, so the server holds none of its caller's (a lock, a harness's pipe); the
/// child has null stdio, its own process group (a Ctrl-C at the terminal does not reach it),
/// `/` as its working directory (it holds no caller's folder busy) and `MEMLAYERS_SERVER=off`.
///
/// Starts nothing (at most one per process) when the root does not exist, is read-only (the
/// in-process call answers it), its socket path would be too long, or this process does not
/// know its own executable.
pub fn spawn_pending() {
    use std::os::unix::process::CommandExt;
    let Some(p) = PENDING.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
    if !p.root.is_dir() || crate::files::read_only_cause(&p.root).is_some() {
        return;
    }
    let Ok(socket) = socket_path(&p.root) else { return };
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let mut cmd = std::process::Command::new(exe);
    cmd.arg("--data-root").arg(&p.root);
    if let Some(tz) = &p.tz {
        cmd.args(["--tz", tz]);
    }
    if let Some(c) = p.config.and_then(|c| std::path::absolute(c).ok()) {
        cmd.arg("--config").arg(c);
    }
    // Descriptors 0–2 are replaced by the null devices below; std opens its own close-on-exec.
    close_fds::set_fds_cloexec_threadsafe(3, &[]);
    let spawned = cmd
        .args(["serve", "--idle-exit", &SPAWN_IDLE_EXIT_SECS.to_string()])
        .env(SERVER_ENV, "off")
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
    if let Ok(child) = spawned {
        eprintln!(
            "memlayers: started a server for {} (pid {}, socket {}; {SERVER_ENV}=spawn); it exits after \
             {SPAWN_IDLE_EXIT_SECS} s without a call, or on `memlayers --data-root {} serve --stop`",
            p.root.display(),
            child.id(),
            socket.display(),
            p.root.display()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// `serve`, `serve --status`, `serve --stop`.

/// `memlayers serve [--idle-exit S | --status | --stop]` for the data root of `cli`: the
/// printed output and exit code. `--status`: 0 and the server's [`Status`] (with `running:
/// true` and `sameBinary`) when one answers, [`EXIT_NOT_RUNNING`] with `running: false` when
/// none runs, 1 when a process holds the socket but does not answer. `--stop`: 0 and
/// `{"stopped": true, "pid": N}` once the server wrote its pending usage hits and left its
/// socket, [`EXIT_NOT_RUNNING`] when none runs, 1 when it did not confirm within 10 s.
/// Serving: see [`serve`]. A data root that does not exist is bad input (exit 2).
pub fn main(cli: &Cli, idle_exit: Option<u64>, status: bool, stop: bool) -> Outcome {
    if !(status || stop) {
        return super::outcome(cli.json, serve(cli, idle_exit).map(|()| String::new()));
    }
    let r = (|| {
        let config = super::load_config(cli)?;
        let root = std::path::absolute(super::data_root(cli, &config)?).map_err(|e| Error::io("data-root", e))?;
        super::require_root(&root)?;
        let socket = socket_path(&root).map_err(|e| Error::io(&root, e))?;
        let op = if stop { Op::Stop } else { Op::Status };
        Ok((root.clone(), socket.clone(), ask(&socket, &Request::new(op, &root, Vec::new()))))
    })();
    let (root, socket, asked) = match r {
        Ok(x) => x,
        Err(e) => return super::outcome(cli.json, Err(e)),
    };
    let print = |v: serde_json::Value, code: i32| {
        let mut out = super::outcome(cli.json, super::render(&v, cli.json));
        if out.code == 0 {
            out.code = code;
        }
        out
    };
    match asked {
        Ok(Reply::Status(s)) if status => {
            let mut v = serde_json::to_value(&s).unwrap_or_default();
            v["running"] = true.into();
            v["sameBinary"] = (s.version == VERSION && s.exe_id == ExeId::running()).into();
            if let Some(o) = v.as_object_mut() {
                o.remove("exeId");
            }
            print(v, 0)
        }
        Ok(Reply::Stopped { stopped }) if stop => print(serde_json::json!({ "stopped": true, "pid": stopped }), 0),
        Err(Failure::NoServer(_)) => {
            print(serde_json::json!({ "running": false, "root": root, "socket": socket }), EXIT_NOT_RUNNING)
        }
        Err(f) => failed(cli.json, &f.why()),
        Ok(_) => failed(cli.json, "the server's reply is not understood"),
    }
}

/// Exit 1 with `why` on stderr, as the CLI prints an internal error.
fn failed(json: bool, why: &str) -> Outcome {
    let stderr = if json { format!("{}\n", serde_json::json!({ "error": why })) } else { format!("error: {why}\n") };
    Outcome { code: 1, stdout: String::new(), stderr }
}

/// What the server was started with, against which each call's options are compared.
struct Served {
    root: PathBuf,
    /// The server's `--config`: its path and the bytes it was loaded from.
    config: Option<(PathBuf, Vec<u8>)>,
    tz: Option<String>,
    /// The zone the server answers in (its `--tz`, else its config's, else the root's).
    zone: chrono_tz::Tz,
    /// The server's `--config` sets `timezone`.
    config_names_zone: bool,
    /// Device and inode of the index file the server opened (`index.sqlite3` in the root).
    index: Option<(u64, u64)>,
    /// The bytes of the root's zone record (`memlayers.json`) when the handle was opened.
    zone_record: Option<Vec<u8>>,
}

impl Served {
    /// True when the server was started with a `--config` whose file no longer holds the bytes
    /// it was loaded from (changed, or gone).
    fn config_changed(&self) -> bool {
        self.config.as_ref().is_some_and(|(own, bytes)| std::fs::read(own).ok().as_deref() != Some(bytes.as_slice()))
    }

    /// True when the root's index file is no longer the one this server opened (deleted, as
    /// docs/ allow, or replaced by a rebuild): answers and usage hits would go to a file no
    /// other process reads.
    fn index_replaced(&self) -> bool {
        file_identity(&self.root.join(crate::index::INDEX_FILE)) != self.index
    }

    /// Why the call `cli` (sent as root `root`) is not this server's to answer, if it is not.
    fn decline(&self, root: &Path, cwd: Option<&Path>, cli: &Cli) -> Option<String> {
        if !forwardable(&cli.cmd) {
            return Some("not a query".into());
        }
        if self.index_replaced() {
            return Some("the index was deleted or replaced since the server started".into());
        }
        // The client's relative paths are relative to its working directory.
        let resolve = |p: &Path| match cwd {
            Some(d) if p.is_relative() => d.join(p),
            _ => p.to_path_buf(),
        };
        let asked = cli.data_root.as_deref().map(resolve).unwrap_or_else(|| root.to_path_buf());
        if same_path(&asked, &self.root) != Some(true) || same_path(root, &self.root) != Some(true) {
            return Some(format!("this server serves {}, not {}", self.root.display(), asked.display()));
        }
        match (cli.config.as_deref().map(resolve), &self.config) {
            (None, None) => {}
            (Some(c), Some((own, _))) if same_path(&c, own) == Some(true) => {
                if self.config_changed() {
                    return Some("the --config file changed since the server started".into());
                }
            }
            _ => return Some("--config differs from the server's".into()),
        }
        if cli.tz != self.tz {
            // Other flags can name the same zone: a call's --tz equal to the server's zone, or
            // a call without --tz, which takes the root's recorded zone when the config names
            // none (a server started with --tz Asia/Shanghai answers a call without --tz on a
            // root recorded in Asia/Shanghai).
            let theirs = match &cli.tz {
                Some(t) => crate::config::parse_tz("tz", t).ok(),
                None if !self.config_names_zone => super::recorded_zone(&self.root),
                None => None,
            };
            if theirs != Some(self.zone) {
                let call = match (&cli.tz, theirs) {
                    (Some(t), _) => format!("--tz {t}"),
                    (None, Some(z)) => format!("no --tz: the root's recorded zone {z}"),
                    (None, None) => "no --tz".to_string(),
                };
                return Some(format!("--tz differs from the server's (the call: {call}; the server: {})", self.zone));
            }
        }
        None
    }
}

fn same_path(a: &Path, b: &Path) -> Option<bool> {
    Some(std::fs::canonicalize(a).ok()? == std::fs::canonicalize(b).ok()?)
}

/// The server's state, shared by its accept loop and its connections' tasks (one thread).
struct State {
    served: RefCell<Served>,
    /// The open data root; `None` once the accept loop ended.
    mem: RefCell<Option<Memory>>,
    /// The server's own command line, parsed again to reopen the root when its zone record
    /// changed.
    argv: Vec<String>,
    exe: PathBuf,
    exe_id: Option<ExeId>,
    started: String,
    idle_exit: Option<u64>,
    socket: PathBuf,
    /// The inode of the socket this server bound.
    bound: Option<u64>,
    last_call: Cell<tokio::time::Instant>,
    calls: Cell<u64>,
    connections: Cell<usize>,
    /// Set by a task that ends the server; the accept loop wakes on `wake`.
    end: RefCell<Option<Ended>>,
    wake: tokio::sync::Notify,
    /// Connections of `serve --stop` clients, answered once the server stopped.
    stop_replies: RefCell<Vec<std::os::unix::net::UnixStream>>,
}

impl State {
    fn finish(&self, why: Ended) {
        self.end.borrow_mut().get_or_insert(why);
        self.wake.notify_one();
    }

    /// Removes the socket if it is still this server's (another server may have replaced it).
    fn remove_socket(&self) {
        if self.bound.is_some() && socket_inode(&self.socket) == self.bound {
            let _ = std::fs::remove_file(&self.socket);
        }
    }

    fn status(&self) -> Status {
        Status {
            pid: std::process::id(),
            exe: self.exe.clone(),
            exe_id: self.exe_id.clone(),
            version: VERSION.into(),
            started: self.started.clone(),
            idle_secs: self.last_call.get().elapsed().as_secs(),
            idle_exit_secs: self.idle_exit,
            calls: self.calls.get(),
            root: self.served.borrow().root.clone(),
            socket: self.socket.clone(),
        }
    }

    /// Reopens the data root when its zone record (`memlayers.json`) changed since it was
    /// opened, as an in-process call would read it: the new zone partitions and frames, and an
    /// invalid record's warning goes with every call. Errors: the reopen failed.
    fn refresh_zone(&self) -> Result<()> {
        let root = self.served.borrow().root.clone();
        let record = std::fs::read(root.join(crate::files::zone::ZONE_FILE)).ok();
        if record == self.served.borrow().zone_record {
            return Ok(());
        }
        let cli = <Cli as clap::Parser>::try_parse_from(&self.argv).map_err(|e| Error::bad("serve", e.to_string()))?;
        let mem = super::open(&cli)?;
        mem.defer_hits(true);
        let mut served = self.served.borrow_mut();
        served.zone = mem.config().timezone;
        served.index = file_identity(&root.join(crate::index::INDEX_FILE));
        // Read again: opening records the zone when the file was missing.
        served.zone_record = std::fs::read(root.join(crate::files::zone::ZONE_FILE)).ok();
        // The old handle writes its pending usage hits as it is dropped.
        drop(self.mem.replace(Some(mem)));
        Ok(())
    }
}

/// Why the accept loop of [`serve`] ended.
#[derive(Debug)]
enum Ended {
    /// `--idle-exit` seconds without a call.
    Idle,
    /// SIGTERM, SIGINT or SIGHUP.
    Signal,
    /// `serve --stop`.
    Stop,
    /// The data root was deleted or moved away (its path names no folder, or another one).
    RootGone,
    /// The socket was removed or replaced (by another server): no call can reach this one.
    SocketLost,
    /// The server's `--config` file changed: it would decline every call from now on, and
    /// while it holds the socket no server with the new config can start.
    ConfigChanged,
    /// The root's index file was deleted or replaced: the server's handle reads and writes a
    /// file no other process sees; the next call opens (and rebuilds) the index anew.
    IndexReplaced,
    /// The executable file at the server's path changed (a new build, an upgrade).
    BinaryChanged,
    /// A client of another executable asked (its description): that binary is the one in use.
    OtherBinary(String),
    /// The root's zone record changed and the root could not be opened again.
    ReopenFailed(String),
}

/// `memlayers serve`: listens on the data root's socket and answers forwarded calls on the
/// root opened long-lived (with its watch), each connection its own task, until SIGTERM /
/// SIGINT / SIGHUP, `serve --stop`, `idle_exit` seconds without a call, or one of the
/// `Ended` conditions. On exit the socket is removed and unwritten usage hits are written.
/// Errors (exit 2): `--now` given; the data root does not exist; a server already answers
/// (or a process holds the socket); the socket path is too long; the runtime folder is not
/// private. I/O errors: exit 1.
pub fn serve(cli: &Cli, idle_exit: Option<u64>) -> Result<()> {
    if cli.now.is_some() {
        return Err(Error::bad("now", "pins the clock of one call; a server answers with the clock"));
    }
    let config = super::load_config(cli)?;
    let root = std::path::absolute(super::data_root(cli, &config)?).map_err(|e| Error::io("data-root", e))?;
    super::require_root(&root)?;
    let socket = socket_path(&root).map_err(|e| Error::io(&root, e))?;
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(Error::bad(
            "serve",
            format!(
                "the socket path {} is too long ({} bytes, at most {MAX_SOCKET_PATH}): set XDG_RUNTIME_DIR to a shorter folder",
                socket.display(),
                socket.as_os_str().len()
            ),
        ));
    }
    let dir = runtime_dir();
    make_private(&dir)?;
    match ask(&socket, &Request::new(Op::Status, &root, Vec::new())) {
        Err(Failure::NoServer(_)) => {}
        Ok(Reply::Status(s)) => {
            return Err(Error::bad(
                "serve",
                format!("a server already answers for {} (pid {}, socket {})", root.display(), s.pid, socket.display()),
            ));
        }
        Ok(_) | Err(_) => {
            return Err(Error::bad(
                "serve",
                format!(
                    "a process holds {} but does not answer; stop it to serve {}",
                    socket.display(),
                    root.display()
                ),
            ));
        }
    }
    // Left by a server that was killed: nothing listens on it. Anything else of that name is
    // not ours to delete.
    if let Ok(m) = std::fs::symlink_metadata(&socket) {
        use std::os::unix::fs::FileTypeExt;
        if !m.file_type().is_socket() {
            return Err(Error::bad(
                "serve",
                format!("{} exists and is not a socket; move it away to serve this data root", socket.display()),
            ));
        }
        std::fs::remove_file(&socket).map_err(|e| Error::io(&socket, e))?;
    }
    let mem = super::open(cli)?;
    let zone_record = std::fs::read(root.join(crate::files::zone::ZONE_FILE)).ok();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    // Bound inside a 0700 folder of this user's: private from its creation. The listen queue
    // holds twice the connections served at once; a client finding it full runs in-process.
    let listener = {
        let _in_runtime = rt.enter();
        let s = tokio::net::UnixSocket::new_stream().map_err(|e| Error::io(&socket, e))?;
        s.bind(&socket).map_err(|e| Error::io(&socket, e))?;
        s.listen(2 * MAX_CONNECTIONS as u32).map_err(|e| Error::io(&socket, e))?
    };
    let bound = socket_inode(&socket);
    let served = Served {
        root: root.clone(),
        config: match &cli.config {
            Some(p) => Some((
                std::path::absolute(p).map_err(|e| Error::io(p, e))?,
                std::fs::read(p).map_err(|e| Error::io(p, e))?,
            )),
            None => None,
        },
        tz: cli.tz.clone(),
        zone: mem.config().timezone,
        config_names_zone: super::config_names_zone(cli),
        index: file_identity(&root.join(crate::index::INDEX_FILE)),
        zone_record,
    };
    // Replies go out before their usage hits are recorded ([`run_call`]): the usage commit was
    // about a third of a day-window query at 1M entries.
    mem.defer_hits(true);
    let exe = std::env::current_exe().unwrap_or_default();
    #[allow(clippy::disallowed_methods)] // the CLI edge: when this server started
    let started = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    // After the bind: a caller that reads this line can connect.
    eprintln!("memlayers: serving {} on {} (pid {})", root.display(), socket.display(), std::process::id());
    let st = Rc::new(State {
        served: RefCell::new(served),
        mem: RefCell::new(Some(mem)),
        argv: std::env::args().collect(),
        exe_id: ExeId::running(),
        exe,
        started,
        idle_exit,
        bound,
        socket: socket.clone(),
        last_call: Cell::new(tokio::time::Instant::now()),
        calls: Cell::new(0),
        connections: Cell::new(0),
        end: RefCell::new(None),
        wake: tokio::sync::Notify::new(),
        stop_replies: RefCell::new(Vec::new()),
    });
    let identity = dir_identity(&root);
    let local = tokio::task::LocalSet::new();
    let ended = local.block_on(&rt, async {
        let idle = idle_exit.map(Duration::from_secs);
        let mut check = tokio::time::interval(LOST_CHECK);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stop = crate::cli::stop_signal();
        tokio::pin!(stop);
        let ended = loop {
            let idle_out = async {
                match idle {
                    Some(d) => tokio::time::sleep_until(st.last_call.get() + d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                // Cancel-safe: a connection is not lost when another branch wins.
                got = listener.accept() => match got {
                    Ok((stream, _)) => {
                        if st.connections.get() < MAX_CONNECTIONS {
                            st.connections.set(st.connections.get() + 1);
                            let st = st.clone();
                            tokio::task::spawn_local(async move {
                                connection(stream, &st).await;
                                st.connections.set(st.connections.get() - 1);
                            });
                        }
                    }
                    Err(e) => log::warn!("serve: accept failed: {e}"),
                },
                () = idle_out => {
                    if idle.is_some_and(|d| st.last_call.get().elapsed() >= d) {
                        break Ended::Idle;
                    }
                }
                _ = check.tick() => {
                    if dir_identity(&root) != identity || identity.is_none() {
                        break Ended::RootGone;
                    }
                    if socket_inode(&socket) != st.bound {
                        break Ended::SocketLost;
                    }
                    if st.served.borrow().config_changed() {
                        break Ended::ConfigChanged;
                    }
                    if st.served.borrow().index_replaced() {
                        break Ended::IndexReplaced;
                    }
                    if std::fs::metadata(&st.exe).ok().map(|m| ExeId::of(&m)) != st.exe_id {
                        break Ended::BinaryChanged;
                    }
                }
                () = &mut stop => break Ended::Signal,
                () = st.wake.notified() => {
                    if let Some(e) = st.end.borrow_mut().take() {
                        break e;
                    }
                }
            }
        };
        Ok::<Ended, Error>(ended)
    });
    st.remove_socket();
    // The connections' tasks go with the set; the handle stays ours.
    let mem = st.mem.borrow_mut().take();
    drop(local);
    let ended = ended?;
    let Some(mem) = mem else { return Ok(()) };
    match &ended {
        Ended::RootGone => {
            eprintln!("memlayers: {} was deleted or moved away; stopping", root.display());
            // Writing usage.json now would recreate the folder (or write into another one
            // made at its path): the handle is dropped without its flush, hits unwritten.
            std::mem::forget(mem);
            return Ok(());
        }
        Ended::SocketLost => {
            eprintln!("memlayers: {} was removed or replaced by another server's; stopping", socket.display())
        }
        Ended::ConfigChanged => eprintln!("memlayers: the --config file changed since this server started; stopping"),
        Ended::IndexReplaced => {
            eprintln!(
                "memlayers: {}'s index was deleted or replaced since this server started; stopping",
                root.display()
            )
        }
        Ended::BinaryChanged => {
            eprintln!("memlayers: the executable {} changed since this server started; stopping", st.exe.display())
        }
        Ended::OtherBinary(who) => eprintln!("memlayers: a call came from {who}; stopping for it"),
        Ended::ReopenFailed(why) => eprintln!("memlayers: {why}; stopping"),
        Ended::Idle | Ended::Signal | Ended::Stop => {}
    }
    let flushed = mem.flush_usage();
    drop(mem);
    // `serve --stop` learns that the server is done once its hits are written.
    let reply = serde_json::to_string(&Reply::Stopped { stopped: std::process::id() }).unwrap_or_default();
    for mut s in st.stop_replies.borrow_mut().drain(..) {
        use std::io::Write;
        let _ = s.set_nonblocking(false);
        let _ = s.set_write_timeout(Some(IO_TIMEOUT));
        let _ = s.write_all(format!("{reply}\n").as_bytes());
    }
    flushed.map(|_| ())
}

/// One connection: the peer's user id checked, one request read (bounded in time and size),
/// answered. A request that does not parse is dropped unanswered.
async fn connection(stream: tokio::net::UnixStream, st: &State) {
    if !stream.peer_cred().is_ok_and(|c| c.uid() == uid()) {
        return;
    }
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::new(rd);
    let Ok(Some(line)) = tokio::time::timeout(IO_TIMEOUT, read_line(&mut rd, MAX_REQUEST_BYTES)).await else {
        return;
    };
    let Ok(req) = serde_json::from_str::<Request>(&line) else { return };
    let send = |reply: &Reply| serde_json::to_string(reply).unwrap_or_default();
    if req.v != PROTOCOL {
        let decline = format!("protocol {} not spoken (this server speaks {PROTOCOL})", req.v);
        write_line(&mut wr, &send(&Reply::Declined { decline, exiting: false }), IO_TIMEOUT).await;
        return;
    }
    match req.op {
        Op::Status => {
            write_line(&mut wr, &send(&Reply::Status(st.status())), IO_TIMEOUT).await;
        }
        Op::Stop => {
            if let Some(s) = rd.into_inner().reunite(wr).ok().and_then(|s| s.into_std().ok()) {
                st.stop_replies.borrow_mut().push(s);
            }
            st.finish(Ended::Stop);
        }
        Op::Call => run_call(req, rd, wr, st).await,
    }
}

/// A call: declined (see [`Served::decline`]; a client of another executable also ends the
/// server), or `ready`, then run once the client says `go`, its reply written within
/// [`IO_TIMEOUT`] and its usage hits recorded only when the reply was delivered (a client that
/// gave up ran the call itself and recorded its own).
async fn run_call(
    req: Request,
    mut rd: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut wr: tokio::net::unix::OwnedWriteHalf,
    st: &State,
) {
    let decline = |why: String, exiting: bool| {
        serde_json::to_string(&Reply::Declined { decline: why, exiting }).unwrap_or_default()
    };
    if req.version != VERSION || req.exe.is_none() || req.exe != st.exe_id {
        let who = format!("another memlayers executable (version {}, not {VERSION}, or other bytes)", req.version);
        // The socket goes first, so that the client can start a server of its own at once.
        st.remove_socket();
        let why = format!(
            "this server (pid {}) runs {}; the call comes from {who}; the server exits",
            std::process::id(),
            st.exe.display()
        );
        write_line(&mut wr, &decline(why, true), IO_TIMEOUT).await;
        st.finish(Ended::OtherBinary(who));
        return;
    }
    let cli = match <Cli as clap::Parser>::try_parse_from(&req.argv) {
        Ok(c) => c,
        Err(_) => {
            write_line(&mut wr, &decline("the command line does not parse".into(), false), IO_TIMEOUT).await;
            return;
        }
    };
    if let Err(e) = st.refresh_zone() {
        let why = format!("the data root's zone record changed and the root could not be opened again: {e}");
        write_line(&mut wr, &decline(why.clone(), false), IO_TIMEOUT).await;
        st.finish(Ended::ReopenFailed(why));
        return;
    }
    let refused = st.served.borrow().decline(&req.root, req.cwd.as_deref(), &cli);
    if let Some(why) = refused {
        write_line(&mut wr, &decline(why, false), IO_TIMEOUT).await;
        return;
    }
    let ready = serde_json::to_string(&Reply::Ready { ready: true }).unwrap_or_default();
    if !write_line(&mut wr, &ready, IO_TIMEOUT).await {
        return;
    }
    // Nothing runs until the client confirms it still waits.
    match tokio::time::timeout(IO_TIMEOUT, read_line(&mut rd, 16)).await {
        Ok(Some(go)) if go == "go" => {}
        _ => return,
    }
    let (out, hits) = {
        let mem = st.mem.borrow();
        let Some(mem) = mem.as_ref() else { return };
        let out = run_captured(&cli, mem);
        (out, mem.take_deferred_hits())
    };
    let text = serde_json::to_string(&Reply::Done(out)).unwrap_or_default();
    let delivered = write_line(&mut wr, &text, IO_TIMEOUT).await;
    if delivered && let Some(mem) = st.mem.borrow().as_ref() {
        mem.record_taken_hits(hits);
    }
    st.calls.set(st.calls.get() + 1);
    st.last_call.set(tokio::time::Instant::now());
}

/// The device and inode of the file `path`, `None` when it names none.
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().filter(|m| m.is_file()).map(|m| (m.dev(), m.ino()))
}

/// The device and inode of the folder `root`, `None` when it names none.
fn dir_identity(root: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(root).ok().filter(|m| m.is_dir()).map(|m| (m.dev(), m.ino()))
}

fn socket_inode(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).ok().map(|m| m.ino())
}

/// Runs one call as the CLI would in its own process: the open handle's warnings first (an
/// in-process call prints them at open), then the warnings the call logs, then its result.
fn run_captured(cli: &Cli, mem: &Memory) -> Outcome {
    super::capture_warnings(true);
    // A --now that does not parse gets the in-process call's error (exit 2, the field named).
    let r = match cli.now.as_deref().map(super::parse_now) {
        Some(Ok(now)) => Memory::at_instant(now, || super::run_cmd(cli, mem)),
        Some(Err(e)) => Err(e),
        None => super::run_cmd(cli, mem),
    };
    let logged = super::capture_warnings(false);
    let mut out = super::outcome(cli.json, r);
    let opened: String = mem.warnings().iter().map(|w| format!("warning: {w}\n")).collect();
    out.stderr = format!("{opened}{logged}{}", out.stderr);
    out
}

//! `memlayers serve`: a resident process for one data root that answers the CLI's queries,
//! and the client side every CLI call runs first ([`forward`]).
//!
//! Why: an agent runs one `memlayers` process per call. In-process, every call
//! opens the index (schema parse, statements compiled anew), and an unwindowed call states all
//! ~3 500 day files to see whether one was edited by hand: 9–14 ms beyond the query at 1M
//! entries. A resident server keeps the index open with its prepared statements and learns
//! of file changes from its watch (inotify on Linux), as git's fsmonitor daemon does for
//! `git status`; the call then costs the process start, one Unix-socket round trip and the
//! query itself.
//!
//! Protocol (one request per connection, both directions one JSON line, UTF-8):
//! * request `{"v": 1, "root": "<the data root the client resolved>", "argv": [...]}`, the
//!   client's whole command line;
//! * reply [`Outcome`] (`{"code", "stdout", "stderr"}`), which the client prints as is and
//!   exits with, or `{"decline": "<why>"}` when the call is not the server's to answer (another
//!   data root, options that change what the call means: `--config`, `--tz` other than the
//!   server's); the client then runs the call itself. A call's `--now` is answered with the
//!   clock pinned for that call alone (`Memory::at_instant`).
//!
//! The socket is `memlayers.sock` in the data root, mode 0600 (only its owner may connect).
//! `MEMLAYERS_SERVER` chooses what a CLI call does ([`Mode`]): `spawn` (the default: unset,
//! empty or an unknown value, the last with a warning) forwards when a server answers, and
//! otherwise runs the call in-process and then starts a server in the background
//! (`serve --idle-exit 600`) for the calls that follow, as Gradle's daemon and Bazel's server
//! are on by default; `auto` forwards when a server answers and never starts one; `off` never
//! forwards; `require` forwards or fails (exit 1) naming why.
//!
//! A server stops on SIGTERM / SIGINT / SIGHUP, after `--idle-exit` seconds without a call,
//! and within [`LOST_CHECK`] of its data root being deleted or moved away or its socket being
//! removed or taken over by another server (nothing could reach it any more). So what a
//! default call leaves behind is one process per data root, for at most 600 s after its last
//! call.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{Cli, Cmd, Outcome, layers::LayerCmd};
use crate::{Error, Memory, Result};

/// The socket's file name in the data root.
pub const SOCKET_FILE: &str = "memlayers.sock";

/// Environment variable choosing whether CLI calls use a running server: `spawn` (default),
/// `auto`, `off`, `require` ([`Mode`]).
pub const SERVER_ENV: &str = "MEMLAYERS_SERVER";

/// What a CLI call does about a server, read from [`SERVER_ENV`] by [`mode`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The default (unset or empty; an unknown value too, with a warning): as [`Mode::Auto`],
    /// and when no server answers a query, start `memlayers serve --idle-exit 600` in the
    /// background after the call ran in-process, for the calls that follow.
    Spawn,
    /// Use a server when one answers; never start one.
    Auto,
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
            None | Some("" | "spawn") => Ok(Mode::Spawn),
            Some("auto") => Ok(Mode::Auto),
            Some("off") => Ok(Mode::Off),
            Some("require") => Ok(Mode::Require),
            Some(_) => Err(Mode::Spawn),
        }
    }
}

/// This process's [`Mode`], read from [`SERVER_ENV`] once. An unknown value (or one that is
/// not UTF-8) warns on stderr, once, and reads as the default, [`Mode::Spawn`].
pub fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| {
        let raw = std::env::var_os(SERVER_ENV);
        let text = raw.as_ref().map(|v| v.to_str().unwrap_or("\u{fffd}"));
        Mode::parse(text).unwrap_or_else(|default| {
            eprintln!(
                "warning: {SERVER_ENV}={:?} is not spawn, auto, off or require; read as spawn, the default \
                 ({SERVER_ENV}=off runs every call in this process)",
                raw.as_deref().unwrap_or_default().to_string_lossy()
            );
            default
        })
    })
}

/// Protocol version of the request line.
const PROTOCOL: u32 = 1;

/// Longest request line the server reads, in bytes: a command line is at most a few KiB (a
/// query is capped at 2 000 chars); anything longer is not a client of ours.
const MAX_REQUEST_BYTES: u64 = 1 << 20;

/// How long a client waits for the server's reply before it gives up on the server (a
/// stopped or wedged one): far above any query's time (milliseconds; seconds for the first
/// call after a 100 MB usage.json edit), short enough not to hang an agent.
const REPLY_TIMEOUT: Duration = Duration::from_secs(15);

/// How long the server waits for a connected client to send its request: a client writes it
/// at once, so a silent connection is not one of ours and must not hold the server up.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

#[derive(Debug, Serialize, Deserialize)]
struct Request {
    v: u32,
    root: PathBuf,
    argv: Vec<String>,
    /// The client's working directory: relative paths of its command line (`--data-root`,
    /// `--config`) are resolved against it, not the server's.
    #[serde(default)]
    cwd: Option<PathBuf>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Reply {
    Declined { decline: String },
    Done(Outcome),
}

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

/// The socket path of a data root.
pub fn socket_path(root: &Path) -> PathBuf {
    root.join(SOCKET_FILE)
}

/// The subcommands [`forwardable`] accepts, by their command-line names.
const QUERY_NAMES: [&str; 7] = ["recall", "retrieve", "recent", "by-tag", "by-date", "hot-get", "stats"];

/// Client side before the command line is parsed: a plain query (no `--config`, `--tz`, help
/// or version flags, no option before the command) is sent as it is to the server of the data
/// root named by `--data-root` (or the default root), and `Some(exit code)` returned when it
/// answered. The server parses the command line itself, so this process skips building its
/// own parser (0.2 ms of a 2.3 ms call). Anything else, or any failure, is `None`: [`main`](super::main)
/// then parses the command line and goes on as usual ([`forward`] included).
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
        None => crate::files::resolve_data_root(
            None,
            std::env::var("DSH_HOME").ok().as_deref(),
            std::env::var_os("HOME").map(PathBuf::from).as_deref(),
        ),
    };
    let root = std::path::absolute(root).ok()?;
    let out = match send(&root, argv) {
        Ok(out) => out,
        // [`forward`] asks again (a server may have come up since) and notes the spawn.
        Err(Failure::NoServer { .. }) => return None,
        Err(f @ Failure::Other(_)) => {
            // A server that declined or did not reply is not asked again by [`forward`].
            *ASKED.lock().unwrap_or_else(|e| e.into_inner()) = Some(f);
            return None;
        }
    };
    Some(emit(&out))
}

/// Prints a server's answer as the call's own output; its exit code.
fn emit(out: &Outcome) -> i32 {
    let _ = std::io::stdout().lock().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().lock().write_all(out.stderr.as_bytes());
    out.code
}

/// Client side, run by every CLI call before it opens anything: `Some(exit code)` when a
/// running server answered the call (its output is printed here), `None` when this process
/// must run the call itself (not a query, `MEMLAYERS_SERVER=off`, no server, or the server
/// declined). With `MEMLAYERS_SERVER=require` a call that could not be forwarded fails with
/// exit 1 instead. In [`Mode::Spawn`], a query no server listened for notes its data root
/// for [`spawn_pending`], which [`main`](super::main) runs after the call.
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
    let sent = match earlier {
        Some(f) => Err(f),
        None => try_forward(cli),
    };
    if let Err(Failure::NoServer { root, .. }) = &sent
        && mode() == Mode::Spawn
    {
        *PENDING.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(Pending { root: root.clone(), tz: cli.tz.clone(), config: cli.config.clone() });
    }
    match sent {
        Ok(out) => Some(emit(&out)),
        Err(Failure::NoServer { why, .. } | Failure::Other(why)) if require => {
            eprintln!("error: {SERVER_ENV}=require and the call was not answered by a server: {why}");
            Some(1)
        }
        Err(_) => None,
    }
}

/// The answer of the server [`forward_unparsed`] asked when it was not the call's output
/// (declined, no reply): [`forward`] reports it instead of asking again.
static ASKED: std::sync::Mutex<Option<Failure>> = std::sync::Mutex::new(None);

/// Why a call was not answered by a server (the text says it for `require`).
#[derive(Debug)]
enum Failure {
    /// Nothing listens on the socket of the data root `root`.
    NoServer { why: String, root: PathBuf },
    /// Not a query, the server declined, or the exchange failed.
    Other(String),
}

fn other(e: impl std::fmt::Display) -> Failure {
    Failure::Other(e.to_string())
}

fn try_forward(cli: &Cli) -> std::result::Result<Outcome, Failure> {
    if !forwardable(&cli.cmd) {
        return Err(other("only queries are answered by a server"));
    }
    let config = super::load_config(cli).map_err(other)?;
    let root = std::path::absolute(super::data_root(cli, &config)).map_err(other)?;
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.into_string().map_err(|_| other("an argument is not UTF-8")))
        .collect::<std::result::Result<_, _>>()?;
    send(&root, argv)
}

/// Sends one call to the server of `root` and reads its reply. Errors: no server listens, it
/// declined, or its reply is not understood.
fn send(root: &Path, argv: Vec<String>) -> std::result::Result<Outcome, Failure> {
    let socket = socket_path(root);
    let root = root.to_path_buf();
    let mut stream = UnixStream::connect(&socket).map_err(|e| Failure::NoServer {
        why: format!("no server at {}: {e}", socket.display()),
        root: root.clone(),
    })?;
    let cwd = std::env::current_dir().ok();
    let req = serde_json::to_string(&Request { v: PROTOCOL, root, argv, cwd }).map_err(other)?;
    let _ = stream.set_write_timeout(Some(REQUEST_TIMEOUT));
    stream.write_all(format!("{req}\n").as_bytes()).map_err(other)?;
    // A stopped or wedged server must not hang the caller: past the timeout the call runs
    // in-process (`auto`) or fails (`require`).
    let _ = stream.set_read_timeout(Some(REPLY_TIMEOUT));
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
            other(format!("no reply from the server within {} s", REPLY_TIMEOUT.as_secs()))
        }
        _ => other(format!("no reply from the server: {e}")),
    })?;
    match serde_json::from_str::<Reply>(&line) {
        Ok(Reply::Done(out)) => Ok(out),
        Ok(Reply::Declined { decline }) => Err(other(format!("the server declined: {decline}"))),
        Err(e) => Err(other(format!("the server's reply is not understood: {e}"))),
    }
}

/// Longest socket path a Unix socket address holds (`sun_path`: 108 bytes on Linux, 104 on
/// macOS, with its terminating NUL).
const MAX_SOCKET_PATH: usize = 103;

/// Whether `serve` can listen for `root`: the socket path fits a socket address and the root
/// can be written (a read-only root cannot hold a socket).
fn can_serve(root: &Path) -> bool {
    socket_path(root).as_os_str().len() <= MAX_SOCKET_PATH && crate::files::read_only_cause(root).is_none()
}

/// Seconds a server started by [`Mode::Spawn`] waits for a call before it exits.
pub const SPAWN_IDLE_EXIT_SECS: u64 = 600;

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
/// serve --idle-exit 600` in the background for the calls that follow. The child has null
/// stdio (a caller reading this call's output through a pipe gets its EOF when this process
/// exits), its own process group (a Ctrl-C at the terminal does not reach it), `/` as its
/// working directory (it holds no caller's folder busy) and `MEMLAYERS_SERVER=off`.
///
/// Runs after the call, so the first call on a new data root (which the query itself
/// creates) gets a server too, and the server's opening sync does not compete with the call.
/// Starts nothing (at most one per process) when the root does not exist after the call
/// (nothing here creates one), cannot hold a socket (path too long, read-only), or this
/// process does not know its own executable.
pub fn spawn_pending() {
    use std::os::unix::process::CommandExt;
    let Some(p) = PENDING.lock().unwrap_or_else(|e| e.into_inner()).take() else { return };
    if !p.root.is_dir() || !can_serve(&p.root) {
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
    let _ = cmd
        .args(["serve", "--idle-exit", &SPAWN_IDLE_EXIT_SECS.to_string()])
        .env(SERVER_ENV, "off")
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn();
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
}

impl Served {
    /// True when the server was started with a `--config` whose file no longer holds the bytes
    /// it was loaded from (changed, or gone).
    fn config_changed(&self) -> bool {
        self.config.as_ref().is_some_and(|(own, bytes)| std::fs::read(own).ok().as_deref() != Some(bytes.as_slice()))
    }

    /// True when the root's index file is no longer the one this server opened (deleted, as
    /// the docs allow: "delete it and the next command rebuilds it", or replaced by a rebuild): answers and usage hits would go to a file
    /// no other process reads (a newcomer's test lost every hit recorded after `rm
    /// index.sqlite3*`).
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
            // none (newcomer test: `serve --tz Asia/Shanghai` declined every call without --tz
            // on a root recorded in Asia/Shanghai).
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

/// `memlayers serve`: listens on the data root's socket and answers forwarded calls on `mem`
/// (opened long-lived, with its watch) one at a time, until SIGTERM / SIGINT or `idle_exit`
/// seconds without a call. On exit the socket is removed and unwritten usage hits are
/// flushed. Errors: another server already answers on this data root's socket (field
/// `serve`); the socket cannot be created (path too long, folder not writable).
pub fn serve(mem: Memory, cli: &Cli, idle_exit: Option<u64>) -> Result<()> {
    if cli.now.is_some() {
        return Err(Error::bad("now", "pins the clock of one call; a server answers with the clock"));
    }
    let root = std::path::absolute(mem.root()).map_err(|e| Error::io(mem.root(), e))?;
    let socket = socket_path(&root);
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(Error::bad(
            "data-root",
            format!(
                "{} is too long for a Unix socket path ({} bytes, at most {MAX_SOCKET_PATH}): serve a data root with a shorter path",
                socket.display(),
                socket.as_os_str().len()
            ),
        ));
    }
    if UnixStream::connect(&socket).is_ok() {
        return Err(Error::bad(
            "serve",
            format!("a server already answers for {} (socket {})", root.display(), socket.display()),
        ));
    }
    // Left by a server that was killed: nothing listens on it. Anything else of that name is
    // not ours to delete.
    if let Ok(m) = std::fs::symlink_metadata(&socket) {
        use std::os::unix::fs::FileTypeExt;
        if !m.file_type().is_socket() {
            return Err(Error::bad(
                "data-root",
                format!("{} exists and is not a socket; move it away to serve this data root", socket.display()),
            ));
        }
        std::fs::remove_file(&socket).map_err(|e| Error::io(&socket, e))?;
    }
    let listener = UnixListener::bind(&socket).map_err(|e| Error::io(&socket, e))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600)).map_err(|e| Error::io(&socket, e))?;
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
    };
    eprintln!("memlayers: serving {} on {}", root.display(), socket.display());
    // Replies go out before their usage hits are recorded ([`answer`]): the usage commit was
    // about a third of a day-window query at 1M entries.
    mem.defer_hits(true);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::io("<tokio runtime>", e))?;
    listener.set_nonblocking(true).map_err(|e| Error::io(&socket, e))?;
    let identity = dir_identity(&root);
    let ended = rt.block_on(async {
        let listener = tokio::net::UnixListener::from_std(listener).map_err(|e| Error::io(&socket, e))?;
        let idle = idle_exit.map(Duration::from_secs);
        let mut deadline = idle.map(|d| tokio::time::Instant::now() + d);
        let mut check = tokio::time::interval(LOST_CHECK);
        check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let stop = crate::cli::stop_signal();
        tokio::pin!(stop);
        let ended = loop {
            let idle_out = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                // Cancel-safe: a connection is not lost when another branch wins.
                got = listener.accept() => match got {
                    Ok((stream, _)) => {
                        // One call at a time, on this thread: the handle's statements and
                        // watch are shared, and a call is a few ms.
                        if let Ok(std) = stream.into_std() {
                            answer(std, &served, &mem);
                        }
                        deadline = idle.map(|d| tokio::time::Instant::now() + d);
                    }
                    Err(e) => log::warn!("serve: accept failed: {e}"),
                },
                () = idle_out => break Ended::Idle,
                _ = check.tick() => {
                    if dir_identity(&root) != identity || identity.is_none() {
                        break Ended::RootGone;
                    }
                    if socket_inode(&socket) != bound {
                        break Ended::SocketLost;
                    }
                    if served.config_changed() {
                        break Ended::ConfigChanged;
                    }
                    if served.index_replaced() {
                        break Ended::IndexReplaced;
                    }
                }
                () = &mut stop => break Ended::Signal,
            }
        };
        Ok::<Ended, Error>(ended)
    });
    // Only our own socket is removed: two servers started at the same instant (two first
    // calls in spawn mode) may have replaced each other's; the one left unreachable stops at
    // its next check.
    if bound.is_some() && socket_inode(&socket) == bound {
        let _ = std::fs::remove_file(&socket);
    }
    match ended? {
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
        Ended::Idle | Ended::Signal => {}
    }
    mem.flush_usage()?;
    Ok(())
}

/// How often a server checks that its data root and socket are still its own.
pub const LOST_CHECK: Duration = Duration::from_secs(1);

/// Why the accept loop of [`serve`] ended.
enum Ended {
    /// `--idle-exit` seconds without a call.
    Idle,
    /// SIGTERM, SIGINT or SIGHUP.
    Signal,
    /// The data root was deleted or moved away (its path names no folder, or another one).
    RootGone,
    /// The socket was removed or replaced (by another server): no call can reach this one.
    SocketLost,
    /// The server's `--config` file changed: it would decline every call from now on (each
    /// declined call also restarted its idle time, so it never idled out: a newcomer's test),
    /// and while it holds the socket no server with the new config can start.
    ConfigChanged,
    /// The root's index file was deleted or replaced: the server's handle reads and writes a
    /// file no other process sees; the next call opens (and rebuilds) the index anew.
    IndexReplaced,
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

/// The request line of `stream`, read within [`REQUEST_TIMEOUT`] in all (a client that
/// trickles bytes cannot hold the server longer) and at most [`MAX_REQUEST_BYTES`]; `None` on
/// a timeout, a closed connection, no newline or text that is not UTF-8.
fn read_request(mut stream: &UnixStream) -> Option<String> {
    use std::io::Read;
    let deadline = std::time::Instant::now() + REQUEST_TIMEOUT;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.contains(&b'\n') {
        let left = deadline.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero())?;
        stream.set_read_timeout(Some(left)).ok()?;
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 || buf.len() as u64 + n as u64 > MAX_REQUEST_BYTES {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let end = buf.iter().position(|b| *b == b'\n')?;
    buf.truncate(end);
    String::from_utf8(buf).ok()
}

/// Reads one request from `stream`, runs it on `mem` (or declines it) and writes the reply.
/// A client that sends nothing within [`REQUEST_TIMEOUT`] or garbage is dropped.
fn answer(stream: UnixStream, served: &Served, mem: &Memory) {
    let _ = stream.set_nonblocking(false);
    let Some(line) = read_request(&stream) else { return };
    let reply = match serde_json::from_str::<Request>(&line).ok() {
        None => return,
        Some(req) if req.v != PROTOCOL => Reply::Declined { decline: format!("protocol {} not spoken", req.v) },
        Some(req) => match <Cli as clap::Parser>::try_parse_from(&req.argv) {
            Err(_) => Reply::Declined { decline: "the command line does not parse".into() },
            Ok(cli) => match served.decline(&req.root, req.cwd.as_deref(), &cli) {
                Some(why) => Reply::Declined { decline: why },
                None => Reply::Done(run_captured(&cli, mem)),
            },
        },
    };
    let delivered = serde_json::to_string(&reply).is_ok_and(|text| {
        let mut stream = stream;
        stream.write_all(format!("{text}\n").as_bytes()).is_ok()
    });
    // The call's usage hits, held back so the reply went out first (serve sets
    // Memory::defer_hits): recorded before the next call is read, each at its query's instant.
    // A reply that could not be written (the client gave up waiting, closed its socket, and
    // ran the call itself: a Unix socket refuses the write at once) records none: that client
    // recorded its own (a stalled server counted a call's hits twice: a newcomer's test).
    if delivered {
        mem.record_deferred_hits();
    } else {
        mem.discard_deferred_hits();
    }
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

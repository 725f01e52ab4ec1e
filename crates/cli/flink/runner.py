"""Runs Flink SQL jobs for `tidemark test --engine flink`: many jobs in one
JVM (started once through PyFlink), a fresh TableEnvironment per job.

tidemark writes this file to a temporary folder, starts `python runner.py`
with the Python of a PyFlink 2.3 installation and talks to it over pipes.

Protocol. stdin carries one job per line, as JSON:

    {"id": "tumble/lateness_spec", "dir": "/abs/folder",
     "statements": ["CREATE TABLE ...", "SET 'k' = 'v'", "SELECT ..."],
     "timeout": 60}

The statements are already split (no trailing ';') and already rewritten for
Flink. For each job, stdout gets exactly one JSON line, flushed at once:

    {"id": ..., "results": [...], "error": null, "seconds": 1.93}

with one result per statement that ran to its end, in order:

    {"statement": i, "kind": "rows", "rows": ["+I[a, 1]", ...]}
        SELECT / WITH / VALUES: the rows as Flink's SQL client renders them
        (RowKind short string, then the fields from the TableResult's
        RowDataToStringConverter joined with ", " inside [ ]; NULL is <NULL>)
    {"statement": i, "kind": "done"}
        any other statement that starts a Flink job (INSERT INTO, CREATE
        TABLE ... AS SELECT, EXECUTE ...), run to its end
    {"statement": i, "kind": "set"}
        SET 'k' = 'v' / RESET 'k' / RESET; a bare SET also has "rows", one
        "+I[key, value]" per key of the job's table config
    {"statement": i, "kind": "other", "rows": [...]}
        CREATE / DROP / SHOW / DESCRIBE / EXPLAIN / USE ...: the rows they
        print, rendered as above ([] when Flink only answers OK)

When statement i fails, "error" is {"statement": i, "message": ...,
"root_cause": ...}: the message is the first line of the Java exception's
toString() (or str() of a Python exception), root_cause the first line of
the innermost cause when there is one (else null). The job stops there.
When the job runs out of time, the message is "timeout after N s"; the Flink
job is cancelled and the next job runs as usual. An error whose "statement"
is null is not about a statement: a line that is not a job (its "id" is then
null when it has none), or a fault of this script. When the JVM dies, the job
gets such an error and the runner exits with status 3.

`python runner.py --version` prints "pyflink X, java Y" and exits 0; it
exits 2 with a message on stderr when pyflink cannot be imported or java is
missing (the same holds for the start of the runner itself).

How jobs run:
* One MiniCluster is started with the JVM; each job's TableEnvironment
  submits to it over REST (execution.target = remote), as the SQL client
  does against a session cluster. Flink's local executor, a MiniCluster per
  job, costs about a second more per job and leaks some 15 MB of metaspace
  per job, and its collect iterator can miss the end of a job ("Failed to
  get job status so we assume that the job has terminated").
* Each job starts from parallelism.default = 1 and nothing else. SET and
  RESET are applied here, to the job's table config: PyFlink's executeSql
  refuses them ("Unsupported SQL query!"). RESET 'k' and RESET go back to
  the job's starting values.
* The TableEnvironments are Java ones, used through py4j. PyFlink's Python
  TableEnvironment would start a Beam loopback server for Python UDFs with
  every instance; SQL jobs do not need one.
* The JVM's working directory is the one the runner was started in, for all
  jobs: Java reads user.dir once at start-up and resolves relative paths
  against it, so it cannot follow each job's "dir". tidemark makes paths
  absolute; "dir" is only where this Python process changes to.
* stdout carries only the JSON lines: the runner keeps a private copy of the
  real stdout and points file descriptor 1 at stderr before the JVM starts,
  so the JVM's System.out (the print connector, say) lands on stderr. Log4j
  logs go to stderr at level $TIDEMARK_FLINK_LOG_LEVEL (default WARN).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

# Cancelled jobs must be gone within this many seconds, else the shared
# MiniCluster is replaced by a new one.
CANCEL_GRACE_SECONDS = 15
# Slots of the shared MiniCluster: enough for SET 'parallelism.default' up
# to this value (each job at parallelism p takes p slots).
CLUSTER_SLOTS = 8
# Every job starts from these options.
JOB_DEFAULTS = {"parallelism.default": "1"}

QUERY_HEADS = ("SELECT", "WITH", "VALUES", "(")


def fail(message, code=2):
    sys.stderr.write("runner.py: %s\n" % message)
    sys.stderr.flush()
    sys.exit(code)


# ---------------------------------------------------------------- versions

def find_java():
    """The java PyFlink will start: $JAVA_HOME/bin/java, else java on PATH."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        java = os.path.join(java_home, "bin", "java")
        return java if os.access(java, os.X_OK) else None
    return shutil.which("java")


def java_version(java):
    try:
        proc = subprocess.run([java, "-version"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    text = proc.stdout.decode("utf-8", "replace")
    m = re.search(r'version "([^"]+)"', text)
    if proc.returncode != 0 or not m:
        return None, text.strip().splitlines()[0] if text.strip() else "no output"
    return m.group(1), None


def java_major(version):
    parts = version.split(".")
    major = int(re.match(r"\d+", parts[0]).group(0))
    if major == 1 and len(parts) > 1:  # 1.8.0_x
        major = int(re.match(r"\d+", parts[1]).group(0))
    return major


def check_installation():
    """(pyflink version, java version), or exit 2 saying what is missing."""
    try:
        from pyflink.version import __version__ as pyflink_version
    except Exception as e:  # noqa: BLE001
        fail("cannot import pyflink with %s: %s" % (sys.executable, e))
    java = find_java()
    if java is None:
        fail("java not found (neither $JAVA_HOME/bin/java nor java on PATH); "
             "Flink %s needs Java 11 or newer" % pyflink_version)
    version, problem = java_version(java)
    if version is None:
        fail("%s -version failed: %s" % (java, problem))
    if java_major(version) < 11:
        fail("%s is Java %s; Flink %s needs Java 11 or newer" % (java, version, pyflink_version))
    return pyflink_version, version


# ----------------------------------------------------------------- the JVM

LOG4J_PROPERTIES = """\
rootLogger.level = {level}
rootLogger.appenderRef.stderr.ref = StdErr
appender.stderr.name = StdErr
appender.stderr.type = Console
appender.stderr.target = SYSTEM_ERR
appender.stderr.layout.type = PatternLayout
appender.stderr.layout.pattern = flink %d{{HH:mm:ss,SSS}} %-5p %c{{1}} - %m%n
# Messages about nothing, which many jobs print: no delegation tokens;
# operator names cut for metrics; a collect request or a fetch of results
# that comes when the job has just ended (the results are complete).
logger.tokens.name = org.apache.flink.runtime.security.token
logger.tokens.level = ERROR
logger.metricnames.name = org.apache.flink.runtime.metrics.util.MetricUtils
logger.metricnames.level = ERROR
logger.collectsink.name = org.apache.flink.streaming.api.operators.collect.CollectSinkOperatorCoordinator
logger.collectsink.level = ERROR
logger.coordination.name = org.apache.flink.runtime.rest.handler.job.coordination.ClientCoordinationHandler
logger.coordination.level = OFF
"""


def keep_stdout():
    """A private file for the JSON answers; fd 1 (inherited by the JVM) and
    sys.stdout go to stderr from here on."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8", errors="backslashreplace",
                    newline="\n")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def copy_to_stderr(stream):
    fd = sys.stderr.fileno()
    try:
        for chunk in iter(lambda: stream.read1(65536), b""):
            os.write(fd, chunk)
    except (OSError, ValueError):
        pass


def start_gateway(tmp_dir):
    """Starts the JVM through PyFlink and returns the py4j gateway."""
    log4j = os.path.join(tmp_dir, "log4j.properties")
    with open(log4j, "w", encoding="utf-8") as f:
        f.write(LOG4J_PROPERTIES.format(
            level=os.environ.get("TIDEMARK_FLINK_LOG_LEVEL", "WARN")))
    os.environ["LOG4J_PROPERTIES"] = log4j
    # PyFlink passes $JVM_ARGS to java. Without a heap limit the JVM takes up
    # to a quarter of the machine's memory, and keeps what it took; the jobs
    # need about 150 MB of heap.
    jvm_args = os.environ.get("JVM_ARGS", "")
    if "-Xmx" not in jvm_args:
        os.environ["JVM_ARGS"] = (jvm_args + " -Xmx1g").strip()

    import pyflink.java_gateway as java_gateway

    # PyFlink starts the JVM with stderr=PIPE and reads that pipe only when
    # the start fails; a JVM that writes much to System.err would block on
    # the full pipe. Copy it to our stderr instead.
    launch = java_gateway.launch_gateway_server_process

    def launch_and_drain(env, args):
        proc = launch(env, args)
        if proc.stderr is not None:
            threading.Thread(target=copy_to_stderr, args=(proc.stderr,),
                             name="jvm-stderr", daemon=True).start()
        return proc

    java_gateway.launch_gateway_server_process = launch_and_drain
    gateway = java_gateway.get_gateway()
    # PyFlink re-raises some Java exceptions (TableException, ...) as Python
    # ones that keep only the stack trace's text; undo that, so that every
    # Java exception arrives as py4j's Py4JJavaError, with its causes.
    import py4j.java_gateway
    import py4j.protocol
    py4j.java_gateway.get_return_value = py4j.protocol.get_return_value
    return gateway


class Cluster:
    """One MiniCluster for all jobs, reached over REST."""

    def __init__(self, jvm):
        self.jvm = jvm
        self.mini = None
        self.options = {}
        self.start()

    def start(self):
        jvm = self.jvm
        conf = jvm.org.apache.flink.configuration.Configuration()
        conf.setString("rest.address", "127.0.0.1")
        conf.setString("rest.bind-address", "127.0.0.1")
        conf.setString("rest.bind-port", "0")
        mcc = jvm.org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder() \
            .setConfiguration(conf).setNumTaskManagers(1) \
            .setNumSlotsPerTaskManager(CLUSTER_SLOTS).build()
        mini = jvm.org.apache.flink.runtime.minicluster.MiniCluster(mcc)
        mini.start()
        uri = mini.getRestAddress().get()
        self.mini = mini
        self.options = {"execution.target": "remote",
                        "rest.address": uri.getHost(),
                        "rest.port": str(uri.getPort())}

    def restart(self):
        sys.stderr.write("runner.py: a cancelled job did not end; starting a new MiniCluster\n")
        self.close()
        self.start()

    def close(self):
        if self.mini is not None:
            try:
                self.mini.close()
            except Exception as e:  # noqa: BLE001
                sys.stderr.write("runner.py: closing the MiniCluster: %s\n" % first_line(e))
            self.mini = None


# -------------------------------------------------------------- statements

class StatementError(Exception):
    pass


def java_exception_of(e):
    """The Java exception behind e (a py4j Py4JJavaError), if any."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        jex = getattr(e, "java_exception", None)
        if jex is not None:
            return jex
        e = e.__cause__ or e.__context__
    return None


def first_line(text):
    text = str(text).strip()
    return text.splitlines()[0] if text else ""


def describe_error(e):
    """(message, root cause) of an exception from a statement."""
    jex = java_exception_of(e)
    if jex is None:
        return first_line(e) or type(e).__name__, None
    try:
        message = first_line(jex.toString())
        root, cause = jex, jex.getCause()
        depth = 0
        while cause is not None and depth < 50:
            root, cause = cause, cause.getCause()
            depth += 1
        root_cause = first_line(root.toString()) if depth else None
        return message, root_cause
    except Exception:  # noqa: BLE001  (the gateway may be gone)
        return first_line(e) or type(e).__name__, None


def strip_leading_comments(sql):
    s = sql
    while True:
        s = s.lstrip()
        if s.startswith("--"):
            nl = s.find("\n")
            s = "" if nl < 0 else s[nl + 1:]
        elif s.startswith("/*"):
            end = s.find("*/")
            s = "" if end < 0 else s[end + 2:]
        else:
            return s


def head_word(sql):
    s = strip_leading_comments(sql)
    if s.startswith("("):
        return "("
    m = re.match(r"[A-Za-z_]+", s)
    return m.group(0).upper() if m else ""


QUOTED = r"'((?:[^']|'')*)'"
SET_RE = re.compile(r"^SET\s+" + QUOTED + r"\s*=\s*" + QUOTED + r"$", re.I | re.S)
SET_BARE_RE = re.compile(r"^SET\s+([^\s=']+)\s*=\s*(.*?)$", re.I | re.S)
SET_LIST_RE = re.compile(r"^SET$", re.I)
RESET_RE = re.compile(r"^RESET\s+" + QUOTED + r"$", re.I | re.S)
RESET_BARE_RE = re.compile(r"^RESET\s+([^\s=']+)$", re.I | re.S)
RESET_ALL_RE = re.compile(r"^RESET$", re.I)


def unquote(s):
    return s.replace("''", "'")


class Job:
    """One job: its TableEnvironment, its running Flink job (for the
    watchdog) and its deadline."""

    def __init__(self, runner, statements, timeout):
        self.runner = runner
        self.jvm = runner.jvm
        self.statements = statements
        self.timeout = timeout
        self.lock = threading.Lock()
        self.timed_out = False
        self.job_client = None
        self.cancelled = []
        self.set_keys = set()
        self.tenv = None
        self.initial_root = None

    # -- the watchdog thread

    def on_timeout(self):
        with self.lock:
            self.timed_out = True
            client = self.job_client
        if client is not None:
            self.cancel(client)

    def cancel(self, client):
        try:
            client.cancel()
        except Exception:  # noqa: BLE001  (already finished or failed)
            pass
        with self.lock:
            self.cancelled.append(client)

    # -- the main thread

    def base_options(self):
        options = dict(JOB_DEFAULTS)
        options.update(self.runner.cluster_options())
        return options

    def new_tenv(self):
        jvm = self.jvm
        conf = jvm.org.apache.flink.configuration.Configuration()
        for k, v in self.base_options().items():
            conf.setString(k, v)
        settings = jvm.org.apache.flink.table.api.EnvironmentSettings.newInstance() \
            .inStreamingMode().withConfiguration(conf).build()
        return jvm.org.apache.flink.table.api.TableEnvironment.create(settings)

    def track(self, result):
        """Remembers the Flink job a statement started, for the watchdog."""
        opt = result.getJobClient()
        if not opt.isPresent():
            return None
        client = opt.get()
        with self.lock:
            self.job_client = client
            late = self.timed_out
        if late:
            self.cancel(client)
            raise StatementError("timed out")
        return client

    def untrack(self):
        with self.lock:
            self.job_client = None

    def run(self):
        """(results, error)."""
        results = []
        watchdog = threading.Timer(self.timeout, self.on_timeout)
        watchdog.daemon = True
        watchdog.start()
        try:
            self.tenv = self.new_tenv()
            self.initial_root = self.jvm.org.apache.flink.configuration.Configuration(
                self.tenv.getConfig().getRootConfiguration())
            for i, stmt in enumerate(self.statements):
                if self.timed_out:
                    return results, self.timeout_error(i)
                try:
                    results.append(self.statement(i, stmt))
                except Exception as e:  # noqa: BLE001  (planning errors are results)
                    if self.timed_out:
                        return results, self.timeout_error(i)
                    if self.runner.gateway_gone(e):
                        raise
                    message, root_cause = describe_error(e)
                    return results, {"statement": i, "message": message,
                                     "root_cause": root_cause}
                finally:
                    self.untrack()
            return results, None
        finally:
            watchdog.cancel()
            self.tenv = None
            self.initial_root = None
            self.wait_cancelled()

    def timeout_error(self, i):
        return {"statement": i, "message": "timeout after %s s" % fmt_seconds(self.timeout),
                "root_cause": None}

    def wait_cancelled(self):
        """Cancelled jobs must end before the next job starts."""
        with self.lock:
            clients, self.cancelled = self.cancelled, []
        if not clients:
            return
        end = time.monotonic() + CANCEL_GRACE_SECONDS
        seconds = self.jvm.java.util.concurrent.TimeUnit.SECONDS
        for client in clients:
            while True:
                try:
                    if client.getJobStatus().get(1, seconds).isGloballyTerminalState():
                        break
                except Exception as e:  # noqa: BLE001
                    jex = java_exception_of(e)
                    name = jex.getClass().getName() if jex is not None else ""
                    if name != "java.util.concurrent.TimeoutException":
                        break  # the job is gone from the cluster: it ended
                if time.monotonic() > end:
                    self.runner.cluster_stuck()
                    return
                time.sleep(0.05)

    def statement(self, i, stmt):
        s = strip_leading_comments(stmt).strip()
        head = head_word(s)
        if head in ("SET", "RESET"):
            return self.set_statement(i, s)
        result = self.tenv.executeSql(stmt)
        client = self.track(result)
        if head in QUERY_HEADS:
            return {"statement": i, "kind": "rows", "rows": self.collect(result)}
        if client is not None:
            getattr(result, "await")()
            return {"statement": i, "kind": "done"}
        rows = []
        if result.getResultKind().toString() == "SUCCESS_WITH_CONTENT":
            rows = self.collect(result)
        return {"statement": i, "kind": "other", "rows": rows}

    def collect(self, result):
        jvm = self.jvm
        # "[f1, f2]"; py4j cannot pass a String[] to Arrays.toString(Object[]).
        to_string = jvm.org.apache.flink.util.StringUtils.arrayAwareToString
        converter = result.getRowDataToStringConverter()
        it = result.collectInternal()
        rows = []
        try:
            while it.hasNext():
                row = it.next()
                rows.append(row.getRowKind().shortString() + to_string(converter.convert(row)))
        finally:
            try:
                it.close()
            except Exception:  # noqa: BLE001
                pass
        return rows

    def set_statement(self, i, s):
        s = s.rstrip(" \t\r\n;")
        config = self.tenv.getConfig()
        m = SET_RE.match(s) or SET_BARE_RE.match(s)
        if m:
            key, value = m.group(1), m.group(2)
            if m.re is SET_RE:
                key, value = unquote(key), unquote(value)
            config.set(key.strip(), value.strip() if m.re is SET_BARE_RE else value)
            self.set_keys.add(key.strip())
            return {"statement": i, "kind": "set"}
        if SET_LIST_RE.match(s):
            conf_map = config.getConfiguration().toMap()
            hidden = self.runner.cluster_options()
            rows = ["+I[%s, %s]" % (k, conf_map.get(k))
                    for k in sorted(conf_map.keySet()) if k not in hidden]
            return {"statement": i, "kind": "set", "rows": rows}
        m = RESET_RE.match(s) or RESET_BARE_RE.match(s)
        if m:
            key = unquote(m.group(1)) if m.re is RESET_RE else m.group(1)
            self.reset_key(config, key)
            return {"statement": i, "kind": "set"}
        if RESET_ALL_RE.match(s):
            for key in list(self.set_keys):
                self.reset_key(config, key)
            return {"statement": i, "kind": "set"}
        raise StatementError("cannot parse %s statement: %s" % (head_word(s), first_line(s)))

    def reset_key(self, config, key):
        # A job run copies the table config into the execution environment's
        # config (the table config's root, which the ExecutionConfig shares),
        # so the key goes back to its starting value in both.
        config.getConfiguration().removeKey(key)
        root = config.getRootConfiguration()
        if self.initial_root.containsKey(key):
            root.setString(key, self.initial_root.getString(key, None))
        else:
            root.removeKey(key)
        base = self.base_options()
        if key in base:
            config.set(key, base[key])
        self.set_keys.discard(key)


def fmt_seconds(x):
    return ("%g" % x) if isinstance(x, (int, float)) else str(x)


# ------------------------------------------------------------------ runner

class Runner:
    def __init__(self, out):
        self.out = out
        self.tmp_dir = tempfile.mkdtemp(prefix="tidemark-flink-")
        try:
            self.gateway = start_gateway(self.tmp_dir)
        except Exception as e:  # noqa: BLE001
            fail("could not start the JVM through PyFlink: %s" % first_line(e))
        self.jvm = self.gateway.jvm
        self.cluster = Cluster(self.jvm)
        self.stuck = False
        # Load the planner and run one job before the first real one, so
        # that the first job's time (and timeout) is not spent on that.
        _, error = Job(self, ["SELECT 1"], 120).run()
        if error is not None:
            sys.stderr.write("runner.py: the warm-up job failed: %s\n" % error["message"])

    def cluster_options(self):
        return self.cluster.options

    def cluster_stuck(self):
        self.stuck = True

    def gateway_gone(self, e):
        """Whether e means the JVM is gone (a Java exception means it is not)."""
        if java_exception_of(e) is not None:
            return False
        try:
            self.jvm.java.lang.System.currentTimeMillis()
            return False
        except Exception:  # noqa: BLE001
            return True

    def answer(self, obj):
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()

    def run_line(self, line):
        started = time.monotonic()
        job_id = None
        try:
            req = json.loads(line)
            if not isinstance(req, dict):
                raise ValueError("a job must be a JSON object")
            job_id = req.get("id")
            statements = req.get("statements")
            if not isinstance(statements, list) or not all(isinstance(s, str) for s in statements):
                raise ValueError('"statements" must be a list of strings')
            timeout = req.get("timeout", 60)
            if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                raise ValueError('"timeout" must be a positive number of seconds')
            job_dir = req.get("dir")
        except ValueError as e:
            self.answer({"id": job_id, "results": [],
                         "error": {"statement": None, "message": "bad job line: %s" % e,
                                   "root_cause": None},
                         "seconds": 0.0})
            return
        if isinstance(job_dir, str) and os.path.isdir(job_dir):
            os.chdir(job_dir)
        try:
            results, error = Job(self, statements, timeout).run()
        except Exception as e:  # noqa: BLE001
            if self.gateway_gone(e):
                self.answer({"id": job_id, "results": [],
                             "error": {"statement": None,
                                       "message": "the Flink JVM is gone: %s" % first_line(e),
                                       "root_cause": None},
                             "seconds": round(time.monotonic() - started, 3)})
                sys.stderr.write("runner.py: the Flink JVM is gone\n")
                sys.stderr.flush()
                shutil.rmtree(self.tmp_dir, ignore_errors=True)
                os._exit(3)
            # A fault of this script rather than of a statement: say so, and
            # go on with the next job.
            results, error = [], {"statement": None,
                                  "message": "runner.py: %s: %s" % (type(e).__name__, first_line(e)),
                                  "root_cause": None}
            import traceback
            traceback.print_exc()
        self.answer({"id": job_id, "results": results, "error": error,
                     "seconds": round(time.monotonic() - started, 3)})
        if self.stuck:
            self.stuck = False
            self.cluster.restart()

    def close(self):
        self.cluster.close()
        shutil.rmtree(self.tmp_dir, ignore_errors=True)


def main(argv):
    if "--version" in argv:
        pyflink_version, java = check_installation()
        print("pyflink %s, java %s" % (pyflink_version, java))
        return 0
    if argv:
        fail("unknown arguments: %s (usage: runner.py [--version])" % " ".join(argv))
    check_installation()
    sys.stdin.reconfigure(encoding="utf-8")
    out = keep_stdout()
    started = time.monotonic()
    runner = Runner(out)
    sys.stderr.write("runner.py: Flink ready in %.1f s\n" % (time.monotonic() - started))
    sys.stderr.flush()
    try:
        while True:
            line = sys.stdin.readline()
            if not line:
                break
            if line.strip():
                runner.run_line(line)
    finally:
        runner.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

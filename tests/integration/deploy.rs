//! The Kubernetes manifests of `deploy/base`, exercised on the binary: no
//! image can be built here, so the tests read the container specs and run
//! `boardscan` the way the kubelet would run the image (its entrypoint is the
//! binary): the Deployment's args and env, its probes answered on its port,
//! SIGTERM ending it within the grace period; and the Indexed Job's args with
//! each completion index, on folders standing in for the volume, followed by
//! the merge Job's script.

use std::{
    collections::BTreeMap,
    io::{Read, Write},
    net::{TcpListener, TcpStream},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_norway::Value;

use super::util::testdata;

fn deploy_file(relative: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(relative);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// The value at `path` (keys, or indices into sequences), or a panic naming it.
fn at<'a>(value: &'a Value, path: &[&str]) -> &'a Value {
    let mut current = value;
    for key in path {
        current = match current {
            Value::Sequence(items) => key.parse::<usize>().ok().and_then(|i| items.get(i)),
            _ => current.get(*key),
        }
        .unwrap_or_else(|| panic!("no {} in the manifest", path.join(".")));
    }
    current
}

fn text(value: &Value, path: &[&str]) -> String {
    match at(value, path) {
        Value::String(s) => s.clone(),
        other => panic!("{} is not a string: {other:?}", path.join(".")),
    }
}

fn number(value: &Value, path: &[&str]) -> u64 {
    at(value, path)
        .as_u64()
        .unwrap_or_else(|| panic!("{} is not a whole number", path.join(".")))
}

fn strings(value: &Value, path: &[&str]) -> Vec<String> {
    at(value, path)
        .as_sequence()
        .unwrap_or_else(|| panic!("{} is not a list", path.join(".")))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

/// The first container of a Deployment's or Job's pod template.
fn container(workload: &Value) -> &Value {
    at(workload, &["spec", "template", "spec", "containers", "0"])
}

/// The container's `env` entries that have a literal `value`.
fn literal_env(container: &Value) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    for entry in at(container, &["env"])
        .as_sequence()
        .expect("env is a list")
    {
        if let Some(value) = entry.get("value") {
            let value = value
                .as_str()
                .expect("env values are strings in the manifest");
            env.insert(text(entry, &["name"]), value.to_string());
        }
    }
    env
}

/// Kubernetes' expansion of `$(NAME)` in a container's command and args:
/// defined variables are replaced, `$$` is a literal `$`, anything else stays.
fn expand(arg: &str, env: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = arg;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        if let Some(after) = rest.strip_prefix("$$") {
            out.push('$');
            rest = after;
        } else if let Some((name_len, value)) = rest
            .strip_prefix("$(")
            .and_then(|r| r.split_once(')'))
            .and_then(|(name, _)| env.get(name).map(|value| (name.len(), value)))
        {
            out.push_str(value);
            rest = &rest["$(".len() + name_len + ")".len()..];
        } else {
            out.push('$');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// A probe's path and container port (resolving a named port).
fn http_probe(container: &Value, probe: &str) -> (String, u64) {
    let get = at(container, &[probe, "httpGet"]);
    let port = match at(get, &["port"]) {
        Value::Number(n) => n.as_u64().expect("a port number"),
        Value::String(name) => {
            let ports = at(container, &["ports"]).as_sequence().expect("ports");
            let port = ports
                .iter()
                .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
                .unwrap_or_else(|| panic!("{probe} names port {name}, which the container lacks"));
            number(port, &["containerPort"])
        }
        other => panic!("{probe}.httpGet.port: {other:?}"),
    };
    (text(get, &["path"]), port)
}

/// `GET path` on loopback; the status, or None when nothing answers within
/// `timeout` (as the kubelet counts a probe failure).
fn http_get(port: u16, path: &str, timeout: Duration) -> Option<u16> {
    let mut stream = TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), timeout).ok()?;
    stream.set_read_timeout(Some(timeout)).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\nUser-Agent: kube-probe/1.30\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let head = String::from_utf8_lossy(&response);
    head.split_whitespace().nth(1)?.parse().ok()
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// The process, killed on drop if a test fails before it exits.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

#[test]
fn deployment_manifest_matches_the_image_and_the_service() {
    let deployment = deploy_file("base/deployment.yaml");
    let pod = at(&deployment, &["spec", "template", "spec"]);
    let c = container(&deployment);

    // The image runs as uid 10001 (Dockerfile); the pod must say the same.
    let dockerfile =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Dockerfile"))
            .expect("Dockerfile");
    let user = dockerfile
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("USER "))
        .expect("the Dockerfile sets USER");
    let uid = number(pod, &["securityContext", "runAsUser"]);
    assert_eq!(
        user.split(':').next(),
        Some(uid.to_string().as_str()),
        "Dockerfile USER {user}"
    );
    assert!(dockerfile.contains(r#"ENTRYPOINT ["/usr/local/bin/boardscan"]"#));
    assert_eq!(
        at(pod, &["securityContext", "runAsNonRoot"]).as_bool(),
        Some(true)
    );
    let security = at(c, &["securityContext"]);
    assert_eq!(
        at(security, &["readOnlyRootFilesystem"]).as_bool(),
        Some(true)
    );
    assert_eq!(
        at(security, &["allowPrivilegeEscalation"]).as_bool(),
        Some(false)
    );
    assert_eq!(strings(security, &["capabilities", "drop"]), ["ALL"]);

    // The probes and the Service reach the port the service binds.
    let env = literal_env(c);
    let bind_port: u64 = env["BOARDSCAN_BIND"]
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse().ok())
        .expect("BOARDSCAN_BIND is host:port");
    for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
        assert_eq!(http_probe(c, probe).1, bind_port, "{probe}");
    }
    let service = deploy_file("base/service.yaml");
    let target = text(&service, &["spec", "ports", "0", "targetPort"]);
    let named = at(c, &["ports"])
        .as_sequence()
        .expect("ports")
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(target.as_str()))
        .expect("the Service's targetPort names a container port");
    assert_eq!(number(named, &["containerPort"]), bind_port);
    let selector = at(&service, &["spec", "selector"]);
    let labels = at(&deployment, &["spec", "template", "metadata", "labels"]);
    for (key, value) in selector.as_mapping().expect("selector") {
        assert_eq!(
            labels.get(key.as_str().unwrap()),
            Some(value),
            "Service selector {key:?}"
        );
    }

    // Requests are sized at least as large as the CPU workers want.
    let workers: f64 = env["BOARDSCAN_CPU_WORKERS"].parse().unwrap();
    let cpu_limit: f64 = text(c, &["resources", "limits", "cpu"]).parse().unwrap();
    assert!(
        workers <= cpu_limit,
        "{workers} CPU workers on a {cpu_limit}-core limit"
    );
}

#[test]
fn container_start_probes_and_sigterm_as_in_the_deployment() {
    let deployment = deploy_file("base/deployment.yaml");
    let pod = at(&deployment, &["spec", "template", "spec"]);
    let c = container(&deployment);
    let args = strings(c, &["args"]);
    let mut env = literal_env(c);
    let port = free_port();
    env.insert("BOARDSCAN_BIND".into(), format!("127.0.0.1:{port}"));
    let args: Vec<String> = args.iter().map(|a| expand(a, &env)).collect();

    // The kubelet sends SIGTERM after preStop; the service then has its
    // shutdown timeout to finish, all within the grace period.
    let grace = number(pod, &["terminationGracePeriodSeconds"]);
    let pre_stop = c
        .get("lifecycle")
        .and_then(|l| l.get("preStop"))
        .and_then(|p| p.get("sleep"))
        .and_then(|s| s.get("seconds"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let shutdown: u64 = env
        .get("BOARDSCAN_SHUTDOWN_TIMEOUT_SECS")
        .map_or(10, |s| s.parse().expect("a number of seconds"));
    assert!(
        grace > pre_stop + shutdown,
        "terminationGracePeriodSeconds {grace} must exceed preStop {pre_stop} s + shutdown {shutdown} s"
    );

    let mut command = Command::new(env!("CARGO_BIN_EXE_boardscan"));
    for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("BOARDSCAN_")) {
        command.env_remove(name);
    }
    let child = command
        .args(&args)
        .envs(&env)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting boardscan as the container does");
    let mut server = Running(child);
    let stderr = server.0.stderr.take().expect("stderr");
    let stderr = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = { stderr }.read_to_string(&mut text);
        text
    });

    // Startup: the kubelet gives initialDelaySeconds + failureThreshold ×
    // periodSeconds before it restarts the container.
    let (startup_path, _) = http_probe(c, "startupProbe");
    let startup = at(c, &["startupProbe"]);
    let budget = Duration::from_secs(
        startup
            .get("initialDelaySeconds")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            + number(startup, &["failureThreshold"]) * number(startup, &["periodSeconds"]),
    );
    let timeout = Duration::from_secs(number(startup, &["timeoutSeconds"]));
    let started = Instant::now();
    let mut last = None;
    while started.elapsed() < budget {
        last = http_get(port, &startup_path, timeout);
        if last == Some(200) {
            break;
        }
        if let Ok(Some(status)) = server.0.try_wait() {
            panic!("boardscan {args:?} exited at start: {status}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        last,
        Some(200),
        "startup probe GET {startup_path} after {budget:?}"
    );

    for probe in ["livenessProbe", "readinessProbe"] {
        let (path, _) = http_probe(c, probe);
        let timeout = Duration::from_secs(number(c, &[probe, "timeoutSeconds"]));
        assert_eq!(
            http_get(port, &path, timeout),
            Some(200),
            "{probe} GET {path}"
        );
    }

    // A recognition in flight when SIGTERM comes is answered.
    let image =
        std::fs::read(testdata().join("boards/13-pychess-cburnett-lichess-brown-white.png"))
            .expect("test image");
    let mut running = TcpStream::connect(("127.0.0.1", port)).expect("connecting");
    write!(
        running,
        "POST /api/v1/recognize HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/octet-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        image.len()
    )
    .unwrap();
    running.write_all(&image).unwrap();
    std::thread::sleep(Duration::from_millis(300));

    let signalled = Instant::now();
    assert_eq!(
        unsafe { libc::kill(server.0.id() as i32, libc::SIGTERM) },
        0
    );
    running
        .set_read_timeout(Some(Duration::from_secs(shutdown)))
        .unwrap();
    let mut answer = Vec::new();
    let _ = running.read_to_end(&mut answer);
    assert!(
        answer.starts_with(b"HTTP/1.1 200"),
        "the recognition running at SIGTERM got {:?}",
        String::from_utf8_lossy(&answer[..answer.len().min(200)])
    );
    let deadline = Duration::from_secs(grace);
    let status = loop {
        if let Some(status) = server.0.try_wait().expect("waiting") {
            break status;
        }
        assert!(
            signalled.elapsed() < deadline,
            "still running {deadline:?} (terminationGracePeriodSeconds) after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let log = stderr.join().unwrap_or_default();
    assert_eq!(
        status.code(),
        Some(0),
        "exit after SIGTERM: {status}\n{log}"
    );
}

/// Where the test puts each volume mount of the Job's container.
fn mount_dirs(c: &Value, root: &Path) -> Vec<(String, PathBuf)> {
    at(c, &["volumeMounts"])
        .as_sequence()
        .expect("volumeMounts")
        .iter()
        .map(|m| {
            let path = text(m, &["mountPath"]);
            let local = root.join(path.trim_start_matches('/').replace('/', "-"));
            std::fs::create_dir_all(&local).unwrap();
            (path, local)
        })
        .collect()
}

/// `arg` with a mount path prefix replaced by its local folder.
fn localise(arg: &str, mounts: &[(String, PathBuf)]) -> String {
    for (mount, local) in mounts {
        if let Some(rest) = arg.strip_prefix(mount.as_str()) {
            if rest.is_empty() || rest.starts_with('/') {
                return format!("{}{rest}", local.display());
            }
        }
    }
    arg.to_string()
}

#[test]
fn indexed_job_shards_then_merge_job_joins_them() {
    let job = deploy_file("base/batch-job.yaml");
    let spec = at(&job, &["spec"]);
    assert_eq!(text(spec, &["completionMode"]), "Indexed");
    let completions = number(spec, &["completions"]);
    assert!(number(spec, &["parallelism"]) <= completions);
    assert_eq!(text(spec, &["template", "spec", "restartPolicy"]), "Never");
    let c = container(&job);
    let args = strings(c, &["args"]);
    let shard = args
        .iter()
        .position(|a| a == "--shard")
        .map(|i| args[i + 1].clone())
        .expect("the Job's args pass --shard");
    assert_eq!(
        shard,
        format!("$(JOB_COMPLETION_INDEX)/{completions}"),
        "one shard per completion index"
    );

    // Every pod mounts the claim that batch-pvc.yaml defines, read-write by
    // many nodes at once.
    let pvc = deploy_file("base/batch-pvc.yaml");
    let claim = text(&pvc, &["metadata", "name"]);
    let volumes = at(spec, &["template", "spec", "volumes"])
        .as_sequence()
        .unwrap();
    assert!(volumes.iter().any(|v| v
        .get("persistentVolumeClaim")
        .and_then(|p| p.get("claimName"))
        .and_then(Value::as_str)
        == Some(claim.as_str())));
    assert!(strings(&pvc, &["spec", "accessModes"]).contains(&"ReadWriteMany".to_string()));

    let root = tempfile::tempdir().unwrap();
    let mounts = mount_dirs(c, root.path());
    let input = &mounts
        .iter()
        .find(|(m, _)| m == "/data/in")
        .expect("/data/in")
        .1;
    let image = std::fs::read_dir(testdata().join("boards"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("01-"))
        .expect("testdata/boards/01-*.png");
    let name = image.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::copy(&image, input.join(&name)).unwrap();

    let mut rows_per_part = Vec::new();
    for index in 0..completions {
        // The Job controller sets JOB_COMPLETION_INDEX in each pod.
        let mut env = literal_env(c);
        env.insert("JOB_COMPLETION_INDEX".into(), index.to_string());
        let pod_args: Vec<String> = args
            .iter()
            .map(|a| localise(&expand(a, &env), &mounts))
            .collect();
        let output = Command::new(env!("CARGO_BIN_EXE_boardscan"))
            .args(&pod_args)
            .envs(&env)
            .stdin(Stdio::null())
            .output()
            .expect("running the shard");
        assert!(
            output.status.success(),
            "shard {index}: boardscan {pod_args:?}: {}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let out = pod_args
            .iter()
            .position(|a| a == "-o")
            .map(|i| PathBuf::from(&pod_args[i + 1]))
            .expect("-o");
        let csv = std::fs::read_to_string(&out)
            .unwrap_or_else(|e| panic!("shard {index} output {}: {e}", out.display()));
        rows_per_part.push(csv.lines().filter(|l| l.contains(&name)).count());
    }
    assert_eq!(
        rows_per_part.iter().sum::<usize>(),
        1,
        "the one image must be in exactly one shard: {rows_per_part:?}"
    );

    // The merge Job's script, with the image's binary and mount replaced.
    let merge = deploy_file("merge/merge-job.yaml");
    let mc = container(&merge);
    let command = strings(mc, &["command"]);
    let merge_env = literal_env(mc);
    assert_eq!(merge_env["SHARDS"], completions.to_string());
    let merge_mounts = mount_dirs(mc, root.path());
    let script = strings(mc, &["args"]).join("\n");
    let mut script = expand(&script, &merge_env)
        .replace("/usr/local/bin/boardscan", env!("CARGO_BIN_EXE_boardscan"));
    for (mount, local) in &merge_mounts {
        script = script.replace(mount.as_str(), &local.display().to_string());
    }
    let output = Command::new(&command[0])
        .args(&command[1..])
        .arg(&script)
        .envs(&merge_env)
        .stdin(Stdio::null())
        .output()
        .expect("running the merge script");
    assert!(
        output.status.success(),
        "merge: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let merged = std::fs::read_to_string(merge_mounts[0].1.join("merged.csv")).expect("merged.csv");
    assert_eq!(
        merged.lines().filter(|l| l.contains(&name)).count(),
        1,
        "{merged}"
    );
    assert!(merged.starts_with("file,"), "{merged}");
}

#[test]
fn expansion_follows_kubernetes_rules() {
    let env = BTreeMap::from([("JOB_COMPLETION_INDEX".to_string(), "3".to_string())]);
    assert_eq!(expand("$(JOB_COMPLETION_INDEX)/8", &env), "3/8");
    assert_eq!(
        expand("part-$(JOB_COMPLETION_INDEX).csv", &env),
        "part-3.csv"
    );
    assert_eq!(
        expand("$$(JOB_COMPLETION_INDEX)", &env),
        "$(JOB_COMPLETION_INDEX)"
    );
    assert_eq!(expand("$(UNSET) $((i + 1))", &env), "$(UNSET) $((i + 1))");
}

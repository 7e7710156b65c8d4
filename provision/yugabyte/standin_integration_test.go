//go:build integration

package yugabyte

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ybbench/ybbench/infra"
	"github.com/ybbench/ybbench/internal/shellquote"
	"github.com/ybbench/ybbench/internal/testenv"
)

// The stand-in tarball. It has the layout of a YugabyteDB release tarball
// (one top directory yugabyte-<version>/ with bin/yb-master,
// bin/yb-tserver and bin/post_install.sh) and says in STANDIN, and in every
// script, that it is not YugabyteDB.
const (
	standinVersion = "2.20.0.0"
	standinName    = "yugabyte-" + standinVersion + "-standin-linux-x86_64.tar.gz"
	standinNote    = "This tarball is a STAND-IN built by ybbench's tests (provision/yugabyte), not YugabyteDB.\n" +
		"bin/yb-master and bin/yb-tserver are small bash scripts that record their arguments,\n" +
		"write their pid and wait to be killed; bin/post_install.sh records that it ran;\n" +
		"bin/ysqlsh and bin/ycqlsh understand only the few statements ybbench sends, and keep\n" +
		"the roles' passwords in files of the test.\n"
)

// standinServer is bin/yb-master or bin/yb-tserver: it records its
// arguments, user and pid under <first data dir>/yb-data/<master|tserver>/
// standin/ (where the real server keeps its data, so a wipe removes it),
// appends a line to the shared order log, and waits to be killed.
func standinServer(name, orderLog string) string {
	return `#!/usr/bin/env bash
# STAND-IN for YugabyteDB's ` + name + `, built by ybbench's tests. Not YugabyteDB.
set -eu
name=` + name + `
data=
for a in "$@"; do
  case $a in --fs_data_dirs=*) data=${a#--fs_data_dirs=}; data=${data%%,*} ;; esac
done
[ -n "$data" ] || { echo "stand-in $name: no --fs_data_dirs" >&2; exit 2; }
rec="$data/yb-data/${name#yb-}/standin"
mkdir -p "$rec"
printf '%s\n' "$@" >"$rec/args"
id -un >"$rec/user"
printf '%s %s %s\n' "$(date +%s.%N)" "$name" "$data" >>` + shellquote.Quote(orderLog) + `
# A tserver registers its address, pid and flags, for the stand-in shells.
if [ "$name" = yb-tserver ]; then
  for a in "$@"; do
    case $a in --rpc_bind_addresses=*) ip=${a#--rpc_bind_addresses=}; ip=${ip%:*} ;; esac
  done
  { echo $$; printf '%s\n' "$@"; } >` + shellquote.Quote(filepath.Join(filepath.Dir(orderLog), "tservers")) + `/"$ip"
fi
# The pid file last: once it is there, so is everything else.
echo $$ >"$rec/pid.tmp"
mv "$rec/pid.tmp" "$rec/pid"
echo "stand-in $name up (pid $$)"
exec sleep infinity
`
}

// standinShells are bin/ysqlsh and bin/ycqlsh: they log their arguments
// and environment to <shared>/clients.log, reach a "server" only when a
// stand-in tserver registered its address and still runs, check the
// password (from a pgpass file or a cqlshrc, as the real shells read them)
// against the role's password file under <shared>/auth when that tserver
// runs with the auth flag, and run only the statements ybbench sends.
func standinShells(shared string) (ysqlsh, ycqlsh string) {
	common := `set -u
shared=` + shellquote.Quote(shared) + `
log_call() {
  { printf '%s' "$1"; shift; printf ' %s' "$@"; printf '\n'; env | sed 's/^/  env /'; } >>"$shared/clients.log"
}
# server ADDR FLAG: the registered tserver at ADDR runs; auth=yes when it
# was started with FLAG=true.
server() {
  local reg=$shared/tservers/$1 pid
  [ -f "$reg" ] || { echo "could not connect to $1: connection refused" >&2; exit 2; }
  pid=$(head -n 1 "$reg")
  kill -0 "$pid" 2>/dev/null || { echo "could not connect to $1: connection refused" >&2; exit 2; }
  auth=no
  if grep -qx -- "--$2=true" "$reg"; then auth=yes; fi
}
# check ROLE PASSWORD DEFAULT: the password is the role's.
check() {
  local want=$3
  [ -f "$shared/auth/$1" ] && want=$(cat "$shared/auth/$1")
  [ -n "$want" ] && [ "$2" = "$want" ] || { echo "FATAL: password authentication failed for user \"${1#*.}\"" >&2; exit 2; }
}
setpw() { mkdir -p "$shared/auth"; printf '%s' "$2" >"$shared/auth/$1"; }
`
	ysqlsh = `#!/usr/bin/env bash
# STAND-IN for YugabyteDB's ysqlsh, built by ybbench's tests. Not YugabyteDB.
` + common + `log_call ysqlsh "$@"
host= port= user= file=
while [ $# -gt 0 ]; do
  case $1 in -h) host=$2; shift ;; -p) port=$2; shift ;; -U) user=$2; shift ;; -f) file=$2; shift ;; -d|-v) shift ;; esac
  shift
done
server "$host" ysql_enable_auth
if [ "$auth" = yes ]; then
  pw=$(awk -F: -v h="$host" -v p="$port" -v u="$user" '$1==h && $2==p && $4==u {print $5; exit}' "${PGPASSFILE:-/nonexistent}" 2>/dev/null)
  default=; [ "$user" = yugabyte ] && default=yugabyte
  check "ysql.$user" "$pw" "$default"
fi
while IFS= read -r line; do
  if [[ $line =~ ^ALTER\ ROLE\ ([a-z]+)\ WITH\ PASSWORD\ \'([^\']*)\'\;$ ]]; then
    setpw "ysql.${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  elif [ "$line" = "SELECT 1;" ]; then
    echo 1
  else
    echo "stand-in ysqlsh: unknown statement" >&2; exit 3
  fi
done <"$file"
`
	ycqlsh = `#!/usr/bin/env bash
# STAND-IN for YugabyteDB's ycqlsh, built by ybbench's tests. Not YugabyteDB.
` + common + `log_call ycqlsh "$@"
host=$1 rc= file=
shift 2
while [ $# -gt 0 ]; do
  case $1 in --cqlshrc=*) rc=${1#--cqlshrc=} ;; -f) file=$2; shift ;; esac
  shift
done
server "$host" use_cassandra_authentication
if [ "$auth" = yes ]; then
  user=$(sed -n 's/^username = //p' "$rc")
  pw=$(sed -n 's/^password = //p' "$rc")
  default=; [ "$user" = cassandra ] && default=cassandra
  check "ycql.$user" "$pw" "$default"
fi
while IFS= read -r line; do
  if [[ $line =~ ^CREATE\ ROLE\ IF\ NOT\ EXISTS\ ([a-z]+)\ WITH\ PASSWORD\ =\ \'([^\']*)\'\ AND\ LOGIN\ =\ true\ AND\ SUPERUSER\ =\ true\;$ ]]; then
    [ -f "$shared/auth/ycql.${BASH_REMATCH[1]}" ] || setpw "ycql.${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  elif [[ $line =~ ^ALTER\ ROLE\ ([a-z]+)\ WITH\ PASSWORD\ =\ \'([^\']*)\'.*\;$ ]]; then
    setpw "ycql.${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  elif [ "$line" = "SELECT key FROM system.local;" ]; then
    echo local
  else
    echo "stand-in ycqlsh: unknown statement" >&2; exit 3
  fi
done <"$file"
`
	return ysqlsh, ycqlsh
}

const standinPostInstall = `#!/usr/bin/env bash
# STAND-IN for YugabyteDB's bin/post_install.sh, built by ybbench's tests.
printf '%s %s %s\n' "$(date +%s.%N)" "$(id -un)" "$PWD" >>"$(dirname "$0")/../post_install.ran"
`

// buildStandin writes the stand-in tarball into dir and returns its path
// and sha256.
func buildStandin(t *testing.T, dir, orderLog string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, standinName)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	top := "yugabyte-" + standinVersion + "/"
	add := func(name string, mode int64, body string) {
		hdr := &tar.Header{Name: top + name, Mode: mode, Size: int64(len(body)), Typeflag: tar.TypeReg, Uname: "standin", Gname: "standin", Uid: 4242, Gid: 4242}
		if strings.HasSuffix(hdr.Name, "/") {
			hdr.Typeflag, hdr.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	add("", 0o755, "")
	add("STANDIN", 0o644, standinNote)
	add("bin/", 0o755, "")
	add("bin/yb-master", 0o755, standinServer("yb-master", orderLog))
	add("bin/yb-tserver", 0o755, standinServer("yb-tserver", orderLog))
	add("bin/post_install.sh", 0o755, standinPostInstall)
	ysqlsh, ycqlsh := standinShells(filepath.Dir(orderLog))
	add("bin/ysqlsh", 0o755, ysqlsh)
	add("bin/ycqlsh", 0o755, ycqlsh)
	add("www/", 0o755, "")
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return path, hex.EncodeToString(sum[:])
}

// testEnv is what the stand-in tests share: a directory the service user
// can reach, the service user, the order log and the tarball.
type testEnv struct {
	dir, user, orderLog, tarball, sha string
}

func newTestEnv(t *testing.T) testEnv {
	t.Helper()
	for _, tool := range []string{"bash", "setsid", "sha256sum", "tar", "curl"} {
		testenv.Need(t, testenv.OnPath(tool), "needs "+tool+" on PATH")
	}
	// As root the servers run as nobody, through setpriv, as on a real
	// host; otherwise as the user running the tests (no switch needed).
	svc := "nobody"
	if os.Geteuid() != 0 {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		svc = u.Username
	} else {
		testenv.Need(t, testenv.OnPath("setpriv"), "needs setpriv on PATH")
		_, err := user.Lookup(svc)
		testenv.Need(t, err == nil, "needs the user nobody")
	}
	dir := t.TempDir()
	// t.TempDir's directories are 0700: the service user must traverse
	// them, as it must traverse runs/<id>/hosts/<name> on a local host.
	for d := dir; d != filepath.Dir(os.TempDir()) && d != "/"; d = filepath.Dir(d) {
		if strings.HasPrefix(d, os.TempDir()+"/") {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	shared := filepath.Join(dir, "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777)
	orderLog := filepath.Join(shared, "order.log")
	if err := os.WriteFile(orderLog, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(orderLog, 0o666)
	// Where stand-in tservers (running as the service user) register.
	if err := os.Mkdir(filepath.Join(shared, "tservers"), 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(shared, "tservers"), 0o777)
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	tarball, sha := buildStandin(t, src, orderLog)
	env := testEnv{dir: dir, user: svc, orderLog: orderLog, tarball: tarball, sha: sha}
	t.Cleanup(func() { env.killStandins(t) })
	return env
}

// killStandins is the safety net of a failed test: it kills, by their
// own pid files, stand-ins that Stop left running.
func (e testEnv) killStandins(t *testing.T) {
	filepath.Walk(e.dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || filepath.Base(p) != "pid" || filepath.Base(filepath.Dir(p)) != "standin" {
			return nil
		}
		b, _ := os.ReadFile(p)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || !alive(pid) {
			return nil
		}
		t.Errorf("stand-in pid %d (%s) still running at the end of the test: killed", pid, p)
		syscall.Kill(pid, syscall.SIGKILL)
		return nil
	})
}

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	rest := s[strings.LastIndex(s, ")")+2:]
	return !strings.HasPrefix(rest, "Z")
}

// dbHost is a db host of the test: its own Base under the test directory
// (made here, with its data dirs, as a provider makes them), address
// 127.0.0.<n>, shared (as local hosts are).
func (e testEnv) dbHost(t *testing.T, n int, dataDirs ...string) infra.Host {
	name := "db" + strconv.Itoa(n)
	for _, d := range append([]string{filepath.Join(e.dir, "hosts", name)}, dataDirs...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return infra.Host{
		Name: name, Roles: []infra.Role{infra.RoleDB},
		PublicIP: "127.0.0." + strconv.Itoa(n), PrivateIP: "127.0.0." + strconv.Itoa(n),
		Cloud: "local", Region: "local", Zone: "local-" + string(rune('a'+n-1)),
		Base: filepath.Join(e.dir, "hosts", name), DataDirs: dataDirs, ServiceUser: e.user, Shared: true,
	}
}

// standinRecord reads what a stand-in recorded on a host.
func standinRecord(t *testing.T, h infra.Host, srv server, what string) string {
	t.Helper()
	sub := strings.TrimPrefix(string(srv), "yb-")
	b, err := os.ReadFile(filepath.Join(dataDirs(h)[0], "yb-data", sub, "standin", what))
	if err != nil {
		t.Fatalf("%s on %s recorded no %s: %v", srv, h.Name, what, err)
	}
	return strings.TrimSpace(string(b))
}

// started reports whether the stand-in of srv runs on h (a stand-in of an
// earlier Install that was stopped does not count: the master would not
// list it as alive either).
func started(h infra.Host, srv server) bool {
	sub := strings.TrimPrefix(string(srv), "yb-")
	b, err := os.ReadFile(filepath.Join(dataDirs(h)[0], "yb-data", sub, "standin", "pid"))
	if err != nil {
		return false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return err == nil && alive(pid)
}

// standinAPI answers like the master leader of the stand-in cluster: the
// first master is the leader once its stand-in runs, the masters and
// tservers whose stand-ins run are listed (ALIVE unless named in dead).
func standinAPI(masters, db []infra.Host, dead map[string]bool) func() apiState {
	return func() apiState {
		var st apiState
		if !started(masters[0], master) {
			return st
		}
		st.Leader = masters[0].Name
		for _, m := range masters {
			if started(m, master) {
				st.Masters = append(st.Masters, net.JoinHostPort(m.PrivateIP, "7100"))
			}
		}
		st.TServers = map[string]string{}
		for _, h := range db {
			if started(h, tserver) {
				status := "ALIVE"
				if dead[h.Name] {
					status = "DEAD"
					st.Dead = append(st.Dead, "uuid-"+h.Name)
				}
				st.TServers[net.JoinHostPort(h.PrivateIP, "9000")] = status
			}
		}
		return st
	}
}

// orderLines reads the order log: one "<time> <server> <data dir>" line
// per stand-in start.
func orderLines(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, strings.Fields(sc.Text()))
	}
	return out
}

// checkOrder checks that every master start comes before every tserver
// start, by line and by time.
func checkOrder(t *testing.T, lines [][]string, masters, tservers int) {
	t.Helper()
	if len(lines) != masters+tservers {
		t.Fatalf("%d starts, want %d masters and %d tservers: %v", len(lines), masters, tservers, lines)
	}
	lastMaster := ""
	for i, l := range lines {
		want := "yb-master"
		if i >= masters {
			want = "yb-tserver"
		}
		if l[1] != want {
			t.Errorf("start %d is %s, want %s: %v", i, l[1], want, lines)
		}
		if want == "yb-master" && l[0] > lastMaster {
			lastMaster = l[0]
		}
		if want == "yb-tserver" && l[0] <= lastMaster {
			t.Errorf("tserver started at %s, before the last master (%s)", l[0], lastMaster)
		}
	}
}

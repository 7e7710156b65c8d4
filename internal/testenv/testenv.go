// Package testenv gives tests the endpoints of the shared test servers that
// `make testenv` started (scripts/testenv/up.sh), read from one JSON file.
//
// Nothing in the tests hard-codes a port: the scripts choose free ports and
// write them here.
package testenv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Postgres is the shared PostgreSQL server.
type Postgres struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	User     string `json:"user"`     // a superuser role the tests may use
	Password string `json:"password"` // that role's password (md5/scram auth over TCP)
	Database string `json:"database"` // an existing database to connect to first
	Version  string `json:"version"`  // server_version, for the records
	DataDir  string `json:"data_dir"`
	OSUser   string `json:"os_user"` // the unprivileged OS user the server runs as
	Bin      string `json:"bin"`     // directory holding initdb, pg_ctl, postgres
	Config   string `json:"config"`  // path of the fixed configuration file the server uses
}

// Cassandra is the shared single-node Apache Cassandra server.
type Cassandra struct {
	Hosts   []string `json:"hosts"`
	Port    int      `json:"port"`
	Version string   `json:"version"`
	Home    string   `json:"home"` // directory with lib/ (jars) and conf/ of the pinned version
	Java    string   `json:"java"` // the java binary used
}

// Endpoints is the content of the endpoints file.
type Endpoints struct {
	Postgres  *Postgres  `json:"postgres,omitempty"`
	Cassandra *Cassandra `json:"cassandra,omitempty"`
	Terraform string     `json:"terraform,omitempty"` // path of the terraform 1.5.7 binary
	BinDir    string     `json:"bin_dir,omitempty"`   // directory of tools installed for tests
	TFLint    string     `json:"tflint,omitempty"`    // path of the tflint 0.64.0 binary
	// ProviderSchemas maps a Terraform provider (aws, google) to its
	// compact schema file (scripts/testenv/providers.sh).
	ProviderSchemas map[string]string `json:"provider_schemas,omitempty"`
	// Moto is the moto server standing in for the AWS APIs
	// (scripts/testenv/moto.sh).
	Moto *Moto `json:"moto,omitempty"`
	// HdrHistogram is the Java HdrHistogram library and a Java 17 to run
	// it (scripts/testenv/tools.sh).
	HdrHistogram *HdrHistogram `json:"hdrhistogram,omitempty"`
	// JunitParser is PyPI's junitparser in a venv
	// (scripts/testenv/junit.sh).
	JunitParser *JunitParser `json:"junitparser,omitempty"`
	// Refs are the JVM reference tools (YCSB core 0.17.0, yb-sample-apps
	// 1.0.11) from Maven Central.
	Refs *Refs `json:"refs,omitempty"`
	// Chromium is Debian's chromium, for the browser test of report.html
	// (scripts/testenv/chromium.sh).
	Chromium *Chromium `json:"chromium,omitempty"`
	// ProviderBuilds are the real Terraform providers built from their Go
	// source (scripts/testenv/provider-builds.sh).
	ProviderBuilds *ProviderBuilds `json:"provider_builds,omitempty"`
}

// ProviderBuilds are the Terraform providers built from source, and the
// CLI configuration (TF_CLI_CONFIG_FILE) whose filesystem mirror installs
// them.
type ProviderBuilds struct {
	CLIConfig string        `json:"cli_config"`
	AWS       ProviderBuild `json:"aws"`
	Google    ProviderBuild `json:"google"`
}

// ProviderBuild is one provider binary and what it was built from.
type ProviderBuild struct {
	Binary  string `json:"binary"`
	Version string `json:"version"` // the Go module's pseudo-version
	Source  string `json:"source"`  // the commit, and the release it is nearest
	// Services are the service packages the build registers ("all": the
	// whole provider).
	Services []string `json:"services"`
	// InstalledAs is the version the CLI configuration's mirror gives it:
	// the one its module pins.
	InstalledAs string `json:"installed_as"`
}

// Chromium is the headless browser's binary.
type Chromium struct {
	Path string `json:"path"`
}

// JunitParser is the venv holding PyPI's junitparser, a JUnit XML reader
// of the kind CI systems use: its Python imports it.
type JunitParser struct {
	Python string `json:"python"`
}

// HdrHistogram is Java HdrHistogram 2.2.2's jar and the Java 17 binary
// that runs its tools (HistogramLogProcessor).
type HdrHistogram struct {
	Jar  string `json:"jar"`
	Java string `json:"java"`
}

// Moto is the test environment's moto server.
type Moto struct {
	// URL is its endpoint, for aws-sdk-go-v2's BaseEndpoint
	// (http://127.0.0.1:<port>); every AWS service answers on it.
	URL string `json:"url"`
}

// Path returns the endpoints file: $YBBENCH_TESTENV, else .testenv/endpoints.json
// at the repository root.
func Path() string {
	if p := os.Getenv("YBBENCH_TESTENV"); p != "" {
		return p
	}
	return filepath.Join(RepoRoot(), ".testenv", "endpoints.json")
}

// RepoRoot returns the repository root (the directory holding go.mod).
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Load reads the endpoints file.
func Load() (*Endpoints, error) {
	p := Path()
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("test environment: %w (run `make testenv`)", err)
	}
	var e Endpoints
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("test environment %s: %w", p, err)
	}
	return &e, nil
}

// Required reports whether a missing server must fail the test rather than skip it.
func Required() bool { return os.Getenv("YBBENCH_TESTENV_REQUIRED") == "1" }

// Need skips the test when ok is false (something it needs, root or a
// tool, is missing), or fails it when the test environment is required
// (make test): a skip there would hide a tier that did not run.
func Need(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if Required() {
		t.Fatal(what + " (YBBENCH_TESTENV_REQUIRED=1: a missing requirement fails the test)")
	}
	t.Skip(what)
}

// OnPath reports whether a command is found on PATH.
func OnPath(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

func missing(t testing.TB, what string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s is not in the test environment", what)
	if err != nil {
		msg += ": " + err.Error()
	}
	if Required() {
		t.Fatal(msg)
	}
	t.Skip(msg + " (run `make testenv`)")
}

// PostgresFor returns the shared PostgreSQL, or skips (fails under `make test`).
func PostgresFor(t testing.TB) *Postgres {
	t.Helper()
	e, err := Load()
	if err != nil || e.Postgres == nil {
		missing(t, "PostgreSQL", err)
	}
	return e.Postgres
}

// CassandraFor returns the shared Cassandra node, or skips (fails under `make test`).
func CassandraFor(t testing.TB) *Cassandra {
	t.Helper()
	e, err := Load()
	if err != nil || e.Cassandra == nil {
		missing(t, "Cassandra", err)
	}
	return e.Cassandra
}

// TerraformFor returns the test environment's terraform 1.5.7, with
// Terraform's update check off for the test, or skips (fails under
// `make test`).
func TerraformFor(t testing.TB) string {
	t.Helper()
	e, err := Load()
	if err == nil && e.Terraform == "" {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "terraform", err)
	}
	t.Setenv("CHECKPOINT_DISABLE", "1")
	return e.Terraform
}

// HdrHistogramFor returns the test environment's Java HdrHistogram, or
// skips (fails under `make test`).
func HdrHistogramFor(t testing.TB) *HdrHistogram {
	t.Helper()
	e, err := Load()
	if err == nil && e.HdrHistogram == nil {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "Java HdrHistogram", err)
	}
	return e.HdrHistogram
}

// JunitParserFor returns the test environment's junitparser venv, or
// skips (fails under `make test`).
func JunitParserFor(t testing.TB) *JunitParser {
	t.Helper()
	e, err := Load()
	if err == nil && (e.JunitParser == nil || e.JunitParser.Python == "") {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "junitparser", err)
	}
	return e.JunitParser
}

// Refs are the JVM reference tools of the test environment.
type Refs struct {
	Java string `json:"java"` // a Java 17
	// YCSBClassPath is YCSB core 0.17.0 and its runtime dependencies, as a
	// class path (a directory's "*"): site.ycsb.Client, site.ycsb.BasicDB.
	YCSBClassPath string `json:"ycsb_classpath"`
	// YBSampleApps is yb-sample-apps 1.0.11's runnable jar.
	YBSampleApps string `json:"yb_sample_apps_jar"`
}

// RefsFor returns the test environment's JVM reference tools, or skips
// (fails under `make test`).
func RefsFor(t testing.TB) *Refs {
	t.Helper()
	e, err := Load()
	if err == nil && (e.Refs == nil || e.Refs.Java == "") {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "the JVM reference tools (refs)", err)
	}
	return e.Refs
}

// ChromiumFor returns the test environment's chromium, or skips (fails
// under `make test`).
func ChromiumFor(t testing.TB) *Chromium {
	t.Helper()
	e, err := Load()
	if err == nil && (e.Chromium == nil || e.Chromium.Path == "") {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "chromium", err)
	}
	return e.Chromium
}

// TFLintFor returns the test environment's tflint 0.64.0, or skips (fails
// under `make test`).
func TFLintFor(t testing.TB) string {
	t.Helper()
	e, err := Load()
	if err == nil && e.TFLint == "" {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "tflint", err)
	}
	return e.TFLint
}

// ProviderSchemaFor returns the path of a Terraform provider's compact
// schema (aws, google), or skips (fails under `make test`).
func ProviderSchemaFor(t testing.TB, provider string) string {
	t.Helper()
	e, err := Load()
	if err == nil && e.ProviderSchemas[provider] == "" {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "the "+provider+" provider schema", err)
	}
	return e.ProviderSchemas[provider]
}

// ProviderBuildsFor returns the test environment's provider builds, or
// skips (fails under `make test`).
func ProviderBuildsFor(t testing.TB) *ProviderBuilds {
	t.Helper()
	e, err := Load()
	if err == nil && (e.ProviderBuilds == nil || e.ProviderBuilds.CLIConfig == "") {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "the Terraform providers built from source", err)
	}
	return e.ProviderBuilds
}

// MotoFor returns the test environment's moto server with its state reset
// (no resources, no SSM parameters), or skips (fails under `make test`).
// Tests that use it must not run in parallel with one another.
func MotoFor(t testing.TB) *Moto {
	t.Helper()
	e, err := Load()
	if err == nil && (e.Moto == nil || e.Moto.URL == "") {
		err = os.ErrNotExist
	}
	if err != nil {
		missing(t, "the moto server", err)
	}
	if err := e.Moto.Reset(); err != nil {
		t.Fatalf("moto: %v", err)
	}
	return e.Moto
}

// Reset empties the server's state (POST /moto-api/reset).
func (m *Moto) Reset() error { return m.post("/moto-api/reset") }

// URL returns a PostgreSQL connection URL for the given database.
func (p *Postgres) URL(database string) string {
	return fmt.Sprintf("postgres://%s:%s@%s:%d/%s?sslmode=disable", p.User, p.Password, p.Host, p.Port, database)
}

// StartRecording empties moto's request log and starts it: from now on
// the server records every request it is sent (its recorder API).
func (m *Moto) StartRecording() error {
	for _, verb := range []string{"reset-recording", "start-recording"} {
		if err := m.post("/moto-api/recorder/" + verb); err != nil {
			return err
		}
	}
	return nil
}

// Recorded stops moto's request log and returns the requests it holds,
// one line each: the method, the path and the action or target asked for.
func (m *Moto) Recorded() ([]string, error) {
	resp, err := http.Get(m.URL + "/moto-api/recorder/download-recording")
	if err != nil {
		return nil, fmt.Errorf("moto recording: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("moto recording: %s %v", resp.Status, err)
	}
	if err := m.post("/moto-api/recorder/stop-recording"); err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var rec struct {
			Method  string            `json:"method"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
			Body    string            `json:"body"`
			Encoded bool              `json:"body_encoded"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			return nil, fmt.Errorf("moto recording: %w", err)
		}
		what := rec.Headers["X-Amz-Target"]
		if rec.Encoded {
			if b, err := base64.StdEncoding.DecodeString(rec.Body); err == nil {
				rec.Body = string(b)
			}
		}
		if v, err := url.ParseQuery(rec.Body); err == nil && v.Get("Action") != "" {
			what = v.Get("Action")
		}
		out = append(out, strings.TrimSpace(rec.Method+" "+rec.URL+" "+what))
	}
	return out, nil
}

func (m *Moto) post(path string) error {
	resp, err := http.Post(m.URL+path, "application/json", nil)
	if err != nil {
		return fmt.Errorf("moto %s: %w", path, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("moto %s: %s", path, resp.Status)
	}
	return nil
}

// AimAtMoto points every AWS call of this process, and of the programs it
// starts, at moto: its endpoint, static credentials, no shared files,
// profile, region or instance metadata of whoever runs the tests.
func AimAtMoto(t testing.TB, m *Moto) {
	t.Helper()
	t.Setenv("AWS_ENDPOINT_URL", m.URL)
	t.Setenv("AWS_ACCESS_KEY_ID", "testing")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "testing")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, k := range []string{"AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent/ybbench-test")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/ybbench-test")
}

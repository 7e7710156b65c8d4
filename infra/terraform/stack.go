// Package terraform runs ybbench's Terraform modules through
// hashicorp/terraform-exec: init, plan to a file and apply that plan, read the
// "hosts" output, destroy. It is the one seam every Terraform-made cluster
// goes through (terraform/local on this machine, terraform/aws and
// terraform/gcp in the clouds).
//
// Everything Terraform keeps lives in the run directory, so a run can be
// inspected, resumed and destroyed from it alone:
//
//	runs/<id>/terraform/                   Terraform's working directory
//	  *.tf                                 a copy of the module, taken by Init
//	  terraform.tfvars.json                the variables (never on a command line)
//	  terraform.tfstate                    the state (local backend)
//	  tfplan                               the plan Apply made and applied
//	runs/<id>/logs/terraform.log           every command's stdout and stderr, appended
package terraform

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/terraform-exec/tfexec"

	"github.com/ybbench/ybbench/internal/exitcode"
)

// Files in the working directory.
const (
	// VarFileName is the variables file Terraform reads (-var-file). Values
	// stay off command lines, where any user of the machine could read them.
	VarFileName = "terraform.tfvars.json"
	// PlanFileName is the plan Apply writes with -out and then applies.
	PlanFileName = "tfplan"
	// StateFileName is the local backend's state.
	StateFileName = "terraform.tfstate"
)

// Stack is one Terraform module instantiated for one run. A Stack is not safe
// for concurrent use (Terraform's state lock would refuse it anyway).
type Stack struct {
	module  fs.FS
	workDir string
	logPath string
	vars    map[string]any
	log     *slog.Logger
	binary  string
	version string
	tf      *tfexec.Terraform
	// out is the open log file of the command in flight, for tfexec's own
	// "running Terraform command" lines.
	out io.Writer
}

// Option configures New.
type Option func(*options)

type options struct {
	binary  string
	vars    map[string]any
	logger  *slog.Logger
	workDir string
	logFile string
}

// Binary sets the terraform executable, ahead of $YBBENCH_TERRAFORM and PATH.
func Binary(path string) Option { return func(o *options) { o.binary = path } }

// Vars sets the module's variables, written by Init to the variables file.
// Values must marshal to JSON.
func Vars(v map[string]any) Option { return func(o *options) { o.vars = v } }

// Logger sets the logger for progress lines (default: discard). Terraform's
// own output goes to the log file, not here.
func Logger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WorkDir overrides the working directory (default <runDir>/terraform).
func WorkDir(dir string) Option { return func(o *options) { o.workDir = dir } }

// LogFile overrides the log file (default <runDir>/logs/terraform.log).
func LogFile(path string) Option { return func(o *options) { o.logFile = path } }

// New finds the terraform binary, checks that it is MinVersion or later
// and prepares the run's working directory. module is the module's files
// (os.DirFS of a module directory, or an embedded copy); it may be nil for a
// Stack that only reads outputs or destroys what an earlier Init copied.
func New(ctx context.Context, module fs.FS, runDir string, opts ...Option) (*Stack, error) {
	o := options{logger: slog.New(slog.DiscardHandler)}
	for _, f := range opts {
		f(&o)
	}
	if runDir == "" {
		return nil, exitcode.Errorf(exitcode.Config, "terraform: no run directory")
	}
	runDir, err := filepath.Abs(runDir)
	if err != nil {
		return nil, fmt.Errorf("terraform: run directory: %w", err)
	}
	if o.workDir == "" {
		o.workDir = filepath.Join(runDir, "terraform")
	}
	if o.logFile == "" {
		o.logFile = filepath.Join(runDir, "logs", "terraform.log")
	}
	s := &Stack{
		module:  module,
		workDir: o.workDir,
		logPath: o.logFile,
		vars:    o.vars,
		log:     o.logger.With("stage", "terraform"),
	}
	// 0700: the state and the variables can hold secrets (cloud modules).
	if err := os.MkdirAll(s.workDir, 0o700); err != nil {
		return nil, fmt.Errorf("terraform: working directory: %w", err)
	}
	if err := lockDown(s.workDir); err != nil {
		return nil, exitcode.Wrap(exitcode.Infra, fmt.Errorf("terraform: %w", err))
	}
	if err := os.MkdirAll(filepath.Dir(s.logPath), 0o755); err != nil {
		return nil, fmt.Errorf("terraform: log directory: %w", err)
	}
	if s.binary, err = FindBinary(o.binary); err != nil {
		return nil, err
	}
	if s.tf, err = tfexec.NewTerraform(s.workDir, s.binary); err != nil {
		return nil, fmt.Errorf("terraform: %w", err)
	}
	if err := s.tf.SetEnv(environment(os.Environ())); err != nil {
		return nil, fmt.Errorf("terraform: environment: %w", err)
	}
	s.tf.SetLogger(printfer{s})
	if err := s.checkVersion(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// WorkDir returns Terraform's working directory.
func (s *Stack) WorkDir() string { return s.workDir }

// LogPath returns the file Terraform's output is appended to.
func (s *Stack) LogPath() string { return s.logPath }

// BinaryPath returns the terraform executable in use.
func (s *Stack) BinaryPath() string { return s.binary }

// Version returns the version the binary reported (MinVersion or later).
func (s *Stack) Version() string { return s.version }

func (s *Stack) path(name string) string { return filepath.Join(s.workDir, name) }

// environment is the environment Terraform runs with: ours, minus what
// could change a run behind the variables file's back or move its files out
// of the run directory, plus CHECKPOINT_DISABLE.
func environment(environ []string) map[string]string {
	env := make(map[string]string, len(environ)+1)
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	// TF_VAR_* and TF_CLI_ARGS* would add variables and flags the variables
	// file does not show; tfexec refuses them (and TF_LOG*, which it manages).
	env = tfexec.CleanEnv(env)
	// TF_DATA_DIR would move .terraform out of the run directory.
	delete(env, "TF_DATA_DIR")
	// ybbench's own settings are not Terraform's, and one may carry a secret
	// (a signed tarball URL in YBBENCH_YB_TARBALL): the local module's hosts
	// would keep it in their long-running sshd's environment.
	for k := range env {
		if strings.HasPrefix(k, "YBBENCH_") {
			delete(env, k)
		}
	}
	// No update checks: runs must not depend on, or wait for, the internet.
	env["CHECKPOINT_DISABLE"] = "1"
	return env
}

// run runs one Terraform command with its output appended to the log file,
// and turns a failure into an *Error carrying the tail of Terraform's stderr.
func (s *Stack) run(ctx context.Context, verb string, f func(context.Context) error) error {
	lf, err := os.OpenFile(s.logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("terraform %s: log file: %w", verb, err)
	}
	defer lf.Close()
	stderr := newTail(16 << 10)
	s.out = lf
	s.tf.SetStdout(lf)
	s.tf.SetStderr(io.MultiWriter(lf, stderr))
	defer func() {
		// The next command sets its own; nothing may write to a closed file.
		s.out = nil
		s.tf.SetStdout(io.Discard)
		s.tf.SetStderr(io.Discard)
	}()

	start := time.Now()
	fmt.Fprintf(lf, "\n=== %s terraform %s (%s)\n", start.UTC().Format(time.RFC3339), verb, s.workDir)
	s.log.Debug("terraform", "command", verb, "dir", s.workDir)
	err = f(ctx)
	// Even a failed command may have written a plan or state.
	if lerr := lockDown(s.workDir); lerr != nil {
		fmt.Fprintf(lf, "=== terraform %s: %v\n", verb, lerr)
		if err == nil {
			return exitcode.Wrap(exitcode.Infra, fmt.Errorf("terraform %s: %w", verb, lerr))
		}
	}
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(lf, "=== terraform %s failed after %s: %v\n", verb, took, cause(err))
		s.log.Info("terraform failed", "command", verb, "took", took, "log", s.logPath)
		return exitcode.Wrap(exitcode.Infra, &Error{Command: verb, Stderr: diagnostics(stderr.String()), Log: s.logPath, Err: err})
	}
	fmt.Fprintf(lf, "=== terraform %s done in %s\n", verb, took)
	s.log.Info("terraform", "command", verb, "took", took)
	return nil
}

// printfer hands tfexec's own log lines ("running Terraform command: …",
// with the full argument list) to the log file of the command in flight.
type printfer struct{ s *Stack }

func (p printfer) Printf(format string, v ...any) {
	line := fmt.Sprintf(format, v...)
	if p.s.out != nil {
		fmt.Fprintln(p.s.out, strings.TrimRight(line, "\n"))
	}
	p.s.log.Debug(line)
}

// fileExists reports whether a regular file exists.
func fileExists(path string) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil:
		return st.Mode().IsRegular(), nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

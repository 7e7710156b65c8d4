// Package cloudinit renders the user data of a cloud host: a multipart
// MIME document that cloud-init reads at first boot. Its cloud-config part
// installs the SSH host key ybbench generated for the host (so the key is
// pinned before the first connection); its shell part finds, formats and
// mounts the data disks and arms the power-off at the run's expiry.
// Rendering is pure: the same parameters give the same bytes.
package cloudinit

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"mime/multipart"
	"net/textproto"
	"strings"
	"text/template"
	"time"

	"github.com/ybbench/ybbench/infra"
)

// The clouds whose images run cloud-init with this user data.
const (
	CloudAWS = "aws"
	CloudGCP = "gcp"
)

// LoginUser is the user a run logs in to its cloud hosts as: the default
// user of Canonical's Ubuntu images, who gets the run's key (from the EC2
// key pair through cloud-init, from the ssh-keys metadata through Google's
// guest environment) and passwordless sudo. cloud.md §9 lists this as read
// from the images' documentation, not re-checked here.
const LoginUser = "ubuntu"

// boundary separates the parts. Fixed, so the rendering is repeatable
// (Terraform replaces a host whose user data changes); it cannot occur in
// a part, whose text is ours and never holds it.
const boundary = "ybbench-user-data-3f1c9a"

// Params is what one host's user data depends on.
type Params struct {
	RunID string
	Host  string
	Cloud string // CloudAWS or CloudGCP
	// HostKey is the host's SSH host key; its public half is the pin.
	HostKey HostKey
	// Expires is when the host powers itself off.
	Expires time.Time
	// DataDisks is how many data disks the host must have mounted.
	DataDisks int
}

// validate reports every problem with p at once, each naming its field.
func (p Params) validate() error {
	var errs []error
	if !infra.ValidRunID(p.RunID) {
		errs = append(errs, fmt.Errorf("run id %q: want %s", p.RunID, infra.RunIDRule))
	}
	if !infra.ValidHostName(p.Host) {
		errs = append(errs, fmt.Errorf("host %q: want 1-63 letters, digits and ._-", p.Host))
	}
	if p.Cloud != CloudAWS && p.Cloud != CloudGCP {
		errs = append(errs, fmt.Errorf("cloud %q: want %s or %s", p.Cloud, CloudAWS, CloudGCP))
	}
	if err := p.HostKey.check(); err != nil {
		errs = append(errs, err)
	}
	if p.Expires.IsZero() {
		errs = append(errs, errors.New("expires: not set"))
	}
	if p.DataDisks < 0 {
		errs = append(errs, fmt.Errorf("data disks: %d is negative", p.DataDisks))
	}
	if len(errs) > 0 {
		return fmt.Errorf("user data for host %q: %w", p.Host, errors.Join(errs...))
	}
	return nil
}

//go:embed firstboot.sh.tmpl
var firstbootTmpl string

var firstboot = template.Must(template.New("firstboot.sh").Parse(firstbootTmpl))

// OnCalendar is t as a systemd calendar time in UTC, to the second.
func OnCalendar(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// renderFirstBoot renders the shell part.
func renderFirstBoot(p Params) ([]byte, error) {
	disks, err := DiskScript(p.DataDisks)
	if err != nil {
		return nil, err
	}
	if strings.Contains(disks, "\nEOF_DISKS\n") {
		return nil, errors.New("disk script holds its own here-document delimiter")
	}
	var b bytes.Buffer
	err = firstboot.Execute(&b, struct {
		Params
		ExpiresText, OnCalendar, DiskScript, MountRoot string
	}{p, p.Expires.UTC().Format(time.RFC3339), OnCalendar(p.Expires), disks, MountRoot})
	if err != nil {
		return nil, fmt.Errorf("first boot script: %w", err)
	}
	return b.Bytes(), nil
}

// Render returns the user data for one host: a multipart/mixed document
// with the cloud-config part first, then the first-boot shell script.
func Render(p Params) ([]byte, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	cc, err := renderCloudConfig(p.Cloud, p.HostKey)
	if err != nil {
		return nil, err
	}
	sh, err := renderFirstBoot(p)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	if err := w.SetBoundary(boundary); err != nil {
		return nil, fmt.Errorf("user data: %w", err)
	}
	parts := []struct {
		contentType, file string
		body              []byte
	}{
		{"text/cloud-config", "cloud-config.yaml", cc},
		{"text/x-shellscript", "ybbench-firstboot.sh", sh},
	}
	for _, part := range parts {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", part.contentType+`; charset="utf-8"`)
		h.Set("Content-Disposition", `attachment; filename="`+part.file+`"`)
		pw, err := w.CreatePart(h)
		if err != nil {
			return nil, fmt.Errorf("user data: %s part: %w", part.file, err)
		}
		if _, err := pw.Write(part.body); err != nil {
			return nil, fmt.Errorf("user data: %s part: %w", part.file, err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("user data: %w", err)
	}
	head := "Content-Type: multipart/mixed; boundary=\"" + boundary + "\"\r\nMIME-Version: 1.0\r\n\r\n"
	return append([]byte(head), body.Bytes()...), nil
}

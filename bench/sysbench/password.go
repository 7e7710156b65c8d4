package sysbench

import (
	"errors"
	"fmt"
)

// readPassword takes the password from --pgsql-password, else
// --pgsql-password-file, else YBLOAD_YSQL_PASSWORD, else PGPASSWORD (as
// libpq does), so it never needs to be on a command line.
func (o *Options) readPassword(vals map[string]string, getenv func(string) string, readSecret func(string) (string, error)) []error {
	if pw, ok := vals["pgsql_password"]; ok && pw != "" {
		o.Password, o.PasswordSource = pw, "--pgsql-password"
		return nil
	}
	if f := vals["pgsql_password_file"]; f != "" {
		if readSecret == nil {
			return []error{errors.New("--pgsql-password-file: no file access")}
		}
		pw, err := readSecret(f)
		if err != nil {
			return []error{fmt.Errorf("--pgsql-password-file: %w", err)}
		}
		o.Password, o.PasswordSource = pw, "--pgsql-password-file"
		return nil
	}
	if getenv != nil {
		for _, k := range []string{"YBLOAD_YSQL_PASSWORD", "PGPASSWORD"} {
			if pw := getenv(k); pw != "" {
				o.Password, o.PasswordSource = pw, "$"+k
				return nil
			}
		}
	}
	return nil
}

package cassandra

import "github.com/ybbench/ybbench/provision/internal/scriptrec"

// records are the "CASS <key> <value>" lines a script prints on stdout.
type records = scriptrec.Records

func parseRecords(out []byte) records { return scriptrec.Parse("CASS ", out) }

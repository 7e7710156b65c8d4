package history

// Unit is a figure's unit as the history's own tables print it (ops/s,
// µs, fraction), so that a page drawn from a history elsewhere (the trend
// page of package report) says the same.
func Unit(figure string) string { return unitOf(figure) }

// Num prints a figure's value as the history's own tables do.
func Num(v float64) string { return num(v) }

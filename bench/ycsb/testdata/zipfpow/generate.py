#!/usr/bin/env python3
"""Writes cases.txt: x, then x**alpha correctly rounded to a double (from
120-bit arithmetic, mpmath), for YCSB's scrambled Zipfian draw (theta 0.99,
10^10 items): alpha, then one x per line as hex floats. The first lines are
draws where Go's math.Pow truncates to another key than the correctly rounded
power does; the rest are spread over the draw's whole range.

    pip install mpmath && python3 generate.py > cases.txt
"""
import math
import mpmath

mpmath.mp.prec = 120
theta = 0.99
alpha = 1 / (1 - theta)
items = 10_000_000_000.0
zetan = 26.46902820178302
zeta2 = 1 + 1 / 2 ** theta
eta = (1 - (2.0 / items) ** (1 - theta)) / (1 - zeta2 / zetan)

# Found by drawing 20 000 000 x and comparing int64(items * pow) of Go's
# math.Pow with that of exp(alpha * log x); in every case the second agreed
# with the correctly rounded power.
disagreements = [
    0.99251717672072903, 0.99957025958283796, 0.9849740553425268, 0.9958589602739166,
    0.9769090923600712, 0.9934874346718724, 0.9985891969236076, 0.9992640986896026,
    0.9996346443107462, 0.9957880198403699, 0.9867307928652067,
]
spread = [1 - eta * (1 - (i + 0.5) / 200) for i in range(200)]

print(alpha.hex(), items.hex())
for x in disagreements + spread:
    p = float(mpmath.power(mpmath.mpf(x), mpmath.mpf(alpha)))
    print(x.hex(), p.hex())

#!/usr/bin/env python3
"""A simplified US Form 1040 for tax year 2020, as an external program for
`lexprobe metamorphic --system cmd:...`.

Protocol: one JSON object of input fields per line on stdin, one JSON object of outputs
per line on stdout (JSON Lines). The program keeps running until stdin closes, so it also
works one call per process. A line that cannot be computed gets {"error": "..."}.

Inputs (the names of form1040.catala_en): sts (Single | MFJ | MFS | HOH), age, blind,
s_age, s_blind, agi (wages; the model has no adjustments), l19 (nonrefundable child tax
credit / credit for other dependents claimed on line 19), l27 (earned income credit
claimed on line 27), l29 (refundable American opportunity credit claimed on line 29), qc
(qualifying children), od (other dependents), mde (medical and dental expenses), iz
(elects to itemize), l12 (Schedule A total carried to line 12; this simplified Schedule A only holds medical expenses, so the
amount allowed is capped by their deductible part above 7.5% of AGI).

Outputs (dollars): refund (refund minus amount owed, negative = owes), tax,
taxable_income, deduction, eitc, ctc, education_credit.

Planted bugs (--bug NAME), one per kind of the paper's findings:
  eitc_mfs       (i)   missing eligibility condition: married filing separately may
                       claim the earned income credit;
  near_zero      (ii)  wrong result near zero: when the education credit exceeds the
                       remaining tax, only 40% of it is counted;
  medical_floor  (iii) the 7.5%-of-AGI medical floor is ignored on Schedule A;
  itemize_above  (iv)  an itemized deduction above the basic standard deduction is used
                       as is, without comparing it with the standard deduction increased
                       for age and blindness, so itemizing slightly above pays less.
"""

import argparse
import json
import sys
from fractions import Fraction

STANDARD = {"Single": 12400, "MFJ": 24800, "MFS": 12400, "HOH": 18650}
ADDITIONAL = {"Single": 1650, "HOH": 1650, "MFJ": 1300, "MFS": 1300}
BRACKETS = {
    "Single": [9875, 40125, 85525, 163300, 207350, 518400],
    "MFJ": [19750, 80250, 171050, 326600, 414700, 622050],
    "MFS": [9875, 40125, 85525, 163300, 207350, 311025],
    "HOH": [14100, 53700, 85500, 163300, 207350, 518400],
}
RATES = [Fraction(r, 100) for r in (10, 12, 22, 24, 32, 35, 37)]
EITC_AGI_LIMIT = {"MFJ": 56844, "Single": 50954, "HOH": 50954, "MFS": 50954}
EITC_MAXIMUM = [538, 3584, 5920, 6660]
CTC_THRESHOLD = {"MFJ": 400000}
CTC_THRESHOLD_OTHER = 200000
AOTC_PHASE_OUT = {"MFJ": (160000, 180000)}
AOTC_PHASE_OUT_OTHER = (80000, 90000)
BUGS = ("eitc_mfs", "near_zero", "medical_floor", "itemize_above")


def cents(x):
    """Rounds an exact amount to the cent, halves away from zero."""
    x = Fraction(x)
    sign = -1 if x < 0 else 1
    scaled = abs(x) * 100
    whole = int(scaled)
    if scaled - whole >= Fraction(1, 2):
        whole += 1
    return Fraction(sign * whole, 100)


def bracket_tax(taxable, status):
    tax = Fraction(0)
    lower = Fraction(0)
    for limit, rate in zip(BRACKETS[status] + [None], RATES):
        upper = Fraction(limit) if limit is not None else None
        if upper is None or taxable <= upper:
            tax += (taxable - lower) * rate
            return cents(tax)
        tax += (upper - lower) * rate
        lower = upper
    return cents(tax)


def money(inputs, name):
    value = inputs[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number")
    return Fraction(str(value))


def compute(inputs, bug):
    status = inputs["sts"]
    if status not in STANDARD:
        raise ValueError(f"unknown filing status {status!r}")
    agi = money(inputs, "agi")
    boxes = int(inputs["age"] >= 65) + int(bool(inputs["blind"]))
    if status == "MFJ":
        boxes += int(inputs["s_age"] >= 65) + int(bool(inputs["s_blind"]))
    standard = Fraction(STANDARD[status] + ADDITIONAL[status] * boxes)

    medical = money(inputs, "mde")
    floor = Fraction(0) if bug == "medical_floor" else cents(agi * Fraction(75, 1000))
    itemized = min(money(inputs, "l12"), max(Fraction(0), medical - floor))
    if not inputs["iz"]:
        deduction = standard
    elif bug == "itemize_above" and itemized > STANDARD[status]:
        deduction = itemized
    else:
        deduction = max(itemized, standard)

    taxable = max(Fraction(0), agi - deduction)
    tax = bracket_tax(taxable, status)
    tax_after_credits = max(Fraction(0), tax - money(inputs, "l19"))

    children = int(inputs["qc"])
    others = int(inputs["od"])
    eitc_eligible = agi <= EITC_AGI_LIMIT[status] and (status != "MFS" or bug == "eitc_mfs")
    eitc = min(money(inputs, "l27"), Fraction(EITC_MAXIMUM[min(children, 3)])) if eitc_eligible else Fraction(0)

    threshold = CTC_THRESHOLD.get(status, CTC_THRESHOLD_OTHER)
    excess = max(Fraction(0), agi - threshold)
    reduction = 50 * -(-excess // 1000)
    ctc = max(Fraction(0), Fraction(2000 * children + 500 * others) - reduction)

    if status == "MFS":
        education = Fraction(0)
    else:
        low, high = AOTC_PHASE_OUT.get(status, AOTC_PHASE_OUT_OTHER)
        factor = min(Fraction(1), max(Fraction(0), Fraction(high) - agi) / (high - low))
        education = cents(money(inputs, "l29") * factor)
        if bug == "near_zero" and education > tax_after_credits:
            education = cents(education * Fraction(40, 100))

    refund = eitc + ctc + education - tax_after_credits
    return {
        "refund": float(refund),
        "tax": float(tax_after_credits),
        "taxable_income": float(taxable),
        "deduction": float(deduction),
        "eitc": float(eitc),
        "ctc": float(ctc),
        "education_credit": float(education),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bug", choices=BUGS, help="plant one bug")
    args = parser.parse_args()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = compute(json.loads(line), args.bug)
        except (KeyError, ValueError, TypeError) as error:
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

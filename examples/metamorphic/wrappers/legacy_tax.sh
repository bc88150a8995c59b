#!/bin/sh
# legacy_tax.sh INPUT_FILE: stands for a legacy tax program that reads its inputs from a file
# ("NAME VALUE" lines: wages, status single|joint, dependents) and prints a banner and its
# results ("NAME AMOUNT" lines) on stdout; errors go to stderr with a non-zero exit status.
# legacy_tax_wrapper.sh puts it behind the JSON Lines protocol of lexprobe metamorphic.
#
# The allowance is $10,000 ($20,000 joint); the credit $500 per dependent, up to the tax.
# A bug hides in the brackets: the rate of the highest bracket reached (10% up to $30,000 of
# taxable income, 20% up to $80,000, 30% above) applies to all of the taxable income, so
# earning a dollar more across a bracket lowers the income after tax.
if [ $# -ne 1 ]; then
  echo "usage: legacy_tax.sh INPUT_FILE" >&2
  exit 2
fi
if [ ! -r "$1" ]; then
  echo "legacy_tax: cannot read $1" >&2
  exit 2
fi
exec awk '
  NF == 2 { v[$1] = $2 }
  END {
    print "LEGACY TAX CALCULATOR 1.0 - TAX YEAR 2024"
    if (!("wages" in v) || !("status" in v) || !("dependents" in v)) {
      print "legacy_tax: the input needs wages, status and dependents" > "/dev/stderr"
      exit 3
    }
    if (v["status"] != "single" && v["status"] != "joint") {
      print "legacy_tax: unknown status " v["status"] > "/dev/stderr"
      exit 3
    }
    allowance = (v["status"] == "joint") ? 20000 : 10000
    taxable = v["wages"] - allowance
    if (taxable < 0) taxable = 0
    if (taxable <= 30000) rate = 0.10
    else if (taxable <= 80000) rate = 0.20
    else rate = 0.30
    tax = taxable * rate
    credit = 500 * v["dependents"]
    if (credit > tax) credit = tax
    balance = tax - credit
    printf "TAXABLE %.2f\nTAX %.2f\nCREDIT %.2f\nBALANCE %.2f\nAFTER_TAX %.2f\n", taxable, tax, credit, balance, v["wages"] - balance
  }' "$1"

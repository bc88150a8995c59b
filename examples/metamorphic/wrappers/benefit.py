"""A family benefit calculator: stands for an existing Python code base that lexprobe should
test without changing it (benefit_wrapper.py puts it behind the JSON Lines protocol).

The monthly benefit is $250 per child, plus $100 for a single parent with children,
reduced by 10% of the yearly income above $40,000 (per month: a twelfth of that). Like much
real code, it prints progress messages on standard output.

A bug hides in the rate for large families: from the fourth child on, every child counts
$180 instead of $250, so a fourth child lowers the benefit.
"""


def monthly_benefit(children, income, single_parent):
    if children < 0 or income < 0:
        raise ValueError("children and income must not be negative")
    print("computing the benefit for %d children" % children)
    per_child = 180 if children >= 4 else 250
    base = per_child * children
    if single_parent and children > 0:
        base += 100
    reduction = max(0.0, (income - 40000) * 0.10 / 12)
    amount = max(0.0, base - reduction)
    return {"benefit": round(amount, 2), "reduction": round(reduction, 2)}

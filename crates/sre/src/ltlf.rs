//! LTLf over symbolic events and its translation into symbolic regular expressions (Section 3):
//! X R = •·R, F R = •*·R, G R = ¬(•*·(¬R ∧ •·•*)) (ℓ* when R is a single event), ℓ U R = ℓ*·R,
//! ℓ W R = ℓ* ∨ ℓ*·R (the left operand of U and W is a single event; other left operands are
//! rejected by [`Ltlf::check_supported`]), a literal ℓ = ℓ·•*, and `last` = • (the
//! final position, used as `lastL && ℓ` for exactly one appended event). Positions range over the
//! non-empty suffixes of the trace, as in LTLf.

use crate::event::Event;
use crate::regex::Sre;

/// An LTLf formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ltlf {
    Event(Event),
    Last,
    Not(Box<Ltlf>),
    And(Box<Ltlf>, Box<Ltlf>),
    Or(Box<Ltlf>, Box<Ltlf>),
    /// Sequencing `a; b`: a trace split into a part satisfying `a` and one satisfying `b`.
    Seq(Box<Ltlf>, Box<Ltlf>),
    Next(Box<Ltlf>),
    Finally(Box<Ltlf>),
    Globally(Box<Ltlf>),
    Until(Box<Ltlf>, Box<Ltlf>),
    WeakUntil(Box<Ltlf>, Box<Ltlf>),
}

/// The single event `f` stands for when `f` is a literal or a negated literal.
fn single_event(f: &Ltlf) -> Option<Event> {
    match f {
        Ltlf::Event(e) => Some(e.clone()),
        Ltlf::Not(inner) => match &**inner {
            Ltlf::Event(e) => Some(e.negate()),
            _ => None,
        },
        Ltlf::And(a, b) => Some(single_event(a)?.and(&single_event(b)?)),
        Ltlf::Or(a, b) => Some(single_event(a)?.or(&single_event(b)?)),
        _ => None,
    }
}

impl Ltlf {
    /// The translation handles `U`/`W` whose left operand is a single event (a literal, its
    /// negation, or boolean combinations of those), as Section 3 does.
    pub fn check_supported(&self) -> Result<(), String> {
        match self {
            Ltlf::Event(_) | Ltlf::Last => Ok(()),
            Ltlf::Not(a) | Ltlf::Next(a) | Ltlf::Finally(a) | Ltlf::Globally(a) => {
                a.check_supported()
            }
            Ltlf::And(a, b) | Ltlf::Or(a, b) | Ltlf::Seq(a, b) => {
                a.check_supported()?;
                b.check_supported()
            }
            Ltlf::Until(a, b) | Ltlf::WeakUntil(a, b) => {
                if single_event(a).is_none() {
                    return Err("the left operand of `_U`/`_W` must be a single event".into());
                }
                a.check_supported()?;
                b.check_supported()
            }
        }
    }

    /// Translation into an SRE.
    pub fn to_sre(&self) -> Sre {
        let plus = || Sre::concat(Sre::any(), Sre::all());
        match self {
            Ltlf::Event(e) => Sre::concat(Sre::lit(e.clone()), Sre::all()),
            Ltlf::Last => Sre::any(),
            Ltlf::Not(a) => Sre::complement(a.to_sre()),
            Ltlf::And(a, b) => match (&**a, &**b) {
                (Ltlf::Last, Ltlf::Event(e)) | (Ltlf::Event(e), Ltlf::Last) => Sre::lit(e.clone()),
                _ => Sre::and([a.to_sre(), b.to_sre()]),
            },
            Ltlf::Or(a, b) => Sre::or([a.to_sre(), b.to_sre()]),
            Ltlf::Seq(a, b) => Sre::concat(a.to_sre(), b.to_sre()),
            Ltlf::Next(a) => Sre::concat(Sre::any(), a.to_sre()),
            Ltlf::Finally(a) => Sre::concat(Sre::all(), a.to_sre()),
            Ltlf::Globally(a) => match single_event(a) {
                Some(e) => Sre::star(Sre::lit(e)),
                None => Sre::complement(Sre::concat(
                    Sre::all(),
                    Sre::and([Sre::complement(a.to_sre()), plus()]),
                )),
            },
            Ltlf::Until(a, b) => match single_event(a) {
                Some(e) => Sre::concat(Sre::star(Sre::lit(e)), b.to_sre()),
                // unreachable after `check_supported`; F b over-approximates a U b
                None => Sre::concat(Sre::all(), b.to_sre()),
            },
            // a W b = G a ∨ a U b (the form of Example 5.7)
            Ltlf::WeakUntil(a, b) => {
                let until = Ltlf::Until(a.clone(), b.clone()).to_sre();
                Sre::or([Ltlf::Globally(a.clone()).to_sre(), until])
            }
        }
    }
}

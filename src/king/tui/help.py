"""The help text: the keys, and the rules of each contract in a few plain sentences.

Written from the project's RULES.md, which stays the reference; this is what a person
needs at the table.
"""

from __future__ import annotations

from king.rules import Rules

__all__ = ["KEYS", "help_markdown"]

#: The keys of the table screen, for the help screen and the docs.
KEYS = (
    ("← →", "move along your hand (↑ ↓ jump a suit)"),
    ("Enter", "play the card under the cursor, or the card you typed"),
    ("qs, 10h, th …", "type a card, rank then suit, then Enter"),
    ("click", "play a card, or choose a contract"),
    ("↑ ↓ Enter", "choose a contract when you declare"),
    ("l", "look at the last trick"),
    ("? or F1", "this help"),
    ("Esc", "clear what you typed; close a window"),
    ("Ctrl+Q", "quit (the game is saved after every card: nothing is lost)"),
)

_RULES = """\
## The game

Four players, 20 deals. Each deal one player, the **declarer**, looks at their 13 cards
and chooses the contract; the turn to declare passes to the left after each deal, so
everyone declares five times. Over the game each player must declare **Trumps twice**
and **a negative contract three times**, and each negative contract can be chosen at
most **twice per game**, by anyone. The menu greys out what you may not choose and says
why.

The declarer leads the first trick. You must **follow suit** if you can. The highest
card of the suit led wins the trick, unless a trump is played: then the highest trump
wins. The winner leads the next trick. Play goes to the left: the player on your left
plays after you.

The points of every deal add up: after 20 deals the totals sum to zero, and the highest
total wins.

## The contracts

* **Trumps** (+50 a trick, +650 in all). The declarer names the trump suit. If you
  cannot follow suit you **must play a trump** if you have one, even under a higher one.
  Trumps may be led at any time.
* **No Tricks** (−50 a trick, −650 in all). Take as few tricks as you can.
* **No Hearts** (−30 a heart taken, −390 in all). Hearts may not be led until a heart
  has been played (unless you hold nothing else).
* **No Queens** (−100 a queen taken, −400 in all).
* **No Boys** (−60 for each king and each jack taken, −480 in all).
* **No King** (−320 for taking the king of hearts). Hearts may not be led until a heart
  has been played (unless you hold nothing else).
* **No Last Two** (−180 for each of the last two tricks, −360 in all).

"Taken" means: in a trick you won. In the negative contracts there is no trump.
"""

_TOGGLES = {
    "forced_penalty": (
        "**Forced penalty cards.** In No Hearts, No Queens, No Boys and No King, if you "
        "cannot follow suit you must discard a penalty card if you hold one; and when "
        "following suit you must play a penalty card of that suit that is lower than the "
        "highest card already in the trick, if you have one."
    ),
    "early_end": (
        "**Early end.** In No Hearts, No Queens, No Boys and No King the deal ends as "
        "soon as the last penalty card has been taken."
    ),
    "overruff": (
        "**Overruff.** In Trumps, when you must trump and can beat every trump in the "
        "trick, you must play a higher trump."
    ),
    "trump_lead_after_break": (
        "**Trumps led after a break.** In Trumps, trumps may not be led until a trump "
        "has been played, unless the leader holds only trumps."
    ),
    "two_of_diamonds_starts": (
        "**Two of diamonds starts.** The holder of the two of diamonds declares first."
    ),
}


def help_markdown(rules: Rules, save_path: str) -> str:
    """The whole help page for a game played under ``rules`` and saved to ``save_path``."""
    keys = "\n".join(f"- **{key}**: {what}" for key, what in KEYS)
    toggles = [text for name, text in _TOGGLES.items() if getattr(rules, name)]
    extra = (
        "\n\n## Rules of this game (" + rules.name + ")\n\n" + "\n\n".join(toggles)
        if toggles
        else f"\n\nThis game uses the **{rules.name}** rules: none of the optional rules."
    )
    return (
        "## Keys\n\n"
        f"{keys}\n\n"
        f"The game is saved after every card and declaration in `{save_path}`; "
        f"continue it later with `king play --resume {save_path}`.\n\n"
        f"{_RULES}{extra}\n\n"
        "Press **Esc** to go back to the table."
    )

"""Every MCR fan: one hand that scores it and one near-miss that does not; and the rulings of RULES.md."""

from __future__ import annotations

from collections import Counter

import pytest
from fanscan.scoring import FanscanError, score
from fanscan.scoring.mcr import FANS, MCR

# (fan id, a hand that scores it, a near-miss that does not). Default context: won on a discard, East/East.
CASES = [
("big_four_winds", "[EEE,1][SSS,1][WWW,1]NNN5p5p", "[EEE,1][SSS,1][WWW,1]NN55p5p"),
("big_three_dragons", "[CCC,1][FFF,1][PPP,1]123m5p5p", "[CCC,1][FFF,1]PP123m55p5p"),
("all_green", "22334466688sFFF", "22334477788sFFF"),
("nine_gates", "1112345678999m5m", "[111m,1]2345678999m5m"),
("four_kongs", "[1111m,1][2222p,1][3333s,1][4444m,1]5p5p", "[1111m,1][2222p,1][3333s,1][444m,1]5p5p"),
("seven_shifted_pairs", "2233445566778s8s", "2233445566779s9s"),
("thirteen_orphans", "19m19p19sESWNCFP1m", "1199m1199pEESSWW"),
("all_terminals", "[111m,1][999m,1][111p,1]999s1s1s", "[111m,1][999m,1][EEE,1]999s1s1s"),
("little_four_winds", "[EEE,1][SSS,1][WWW,1]NN55p5p", "[EEE,1][SSS,1][WWW,1]CC55p5p"),
("little_three_dragons", "[CCC,1][FFF,1]PP123m55p5p", "[CCC,1][FFF,1]EE123m55p5p"),
("all_honors", "[EEE,1][SSS,1][CCC,1]FFFPP", "[EEE,1][SSS,1][CCC,1]FFF1m1m"),
("four_concealed_pungs", "111m333p555s777m9p9p", "111m333p555s77m99p7m"),
("pure_terminal_chows", "1122335577889m9m", "1122336677889m9m"),
("quadruple_chow", "[234s,1][234s,1]234s34s55m2s", "[234s,1][234s,1]234s45s55m3s"),
("four_pure_shifted_pungs", "[111s,1][222s,1][333s,1]444s5m5m", "[111s,1][222s,1][333s,1]555s5m5m"),
("four_shifted_chows", "[123m,1][234m,1]345m456m9p9p", "[123m,1][234m,1]345m567m9p9p"),
("three_kongs", "[1111m,1][2222p,1][3333s,1]456m5p5p", "[1111m,1][2222p,1][333s,1]456m5p5p"),
("all_terminals_and_honors", "[111m,1][999p,1][EEE,1]CCC1s1s", "[111m,1][999p,1][EEE,1]CCC2s2s"),
("seven_pairs", "1133m4466p2288sEE", "11223344556677p"),
("greater_honors_knitted", "14m258p3sESWNCFP7m", "147m258p36sESWNCF"),
("all_even_pungs", "[222m,1][444p,1][666s,1]888m6p6p", "[222m,1][444p,1][666s,1]888m5p5p"),
("full_flush", "[123m,1]456m789m111m5m5m", "[123m,1]456m789m111m5p5p"),
("pure_triple_chow", "[123m,1]123m123m456p9s9s", "[123m,1]123m234m456p9s9s"),
("pure_shifted_pungs", "[111m,1][222m,1]333m456p9s9s", "[111m,1][222m,1]444m456p9s9s"),
("upper_tiles", "[789m,1][777p,1]888s789s9m9m", "[789m,1][666p,1]888s789s9m9m"),
("middle_tiles", "[456m,1][444p,1]555s456s6m6m", "[456m,1][444p,1]555s456s7m7m"),
("lower_tiles", "[123m,1][111p,1]222s123s3m3m", "[123m,1][111p,1]222s123s4m4m"),
("pure_straight", "[123m,1]456m789m234p5s5s", "[123m,1]456m678m234p5s5s"),
("three_suited_terminal_chows", "[123m,1][789m,1]123p789p5s5s", "[123m,1][789m,1]123p789p5m5m"),
("pure_shifted_chows", "[123m,1]234m345m789p5s5s", "[123m,1]234m456m789p5s5s"),
("all_fives", "[345m,1][555p,1]456s567s5m5m", "[345m,1][555p,1]456s678s5m5m"),
("triple_pung", "[222m,1][222p,1]222s456m9s9s", "[222m,1][222p,1]333s456m9s9s"),
("three_concealed_pungs", "[123m,1]222p444s666m9s9s", "[123m,1]222p444s66m99s6m"),
("lesser_honors_knitted", "147m258p36sESWNCF", "14m258p3sESWNCFP7m"),
("knitted_straight", "147m258p369s123m5p5p", "147m258p36sESWNCF"),
("upper_four", "[678m,1][666p,1]777s789s9m9m", "[567m,1][666p,1]777s789s9m9m"),
("lower_four", "[234m,1][444p,1]111s123s1m1m", "[345m,1][444p,1]111s123s1m1m"),
("big_three_winds", "[EEE,1][SSS,1][WWW,1]123m5p5p", "[EEE,1][SSS,1][CCC,1]123m5p5p"),
("mixed_straight", "[123m,1]456p789s234m5s5s", "[123m,1]456p789m234m5s5s"),
("reversible_tiles", "[123p,1][888p,1]456s99sPPP", "[123p,1][888p,1]567s99sPPP"),
("mixed_triple_chow", "[123m,1]123p123s456m9s9s", "[123m,1]123p234s456m9s9s"),
("mixed_shifted_pungs", "[222m,1][333p,1]444s567m9s9s", "[222m,1][333p,1]555s567m9s9s"),
("chicken_hand", "[123m,1][345m,1]678p56sWW7s", "[123m,1][345m,1]678p56sWW7s|EE1000"),
("last_tile_draw", "[123m,1][345m,1]567m34sCC5s|EE1010", "[123m,1][345m,1]567m34sCC5s|EE1000"),
("last_tile_claim", "[123m,1][345m,1]567m34sCC5s|EE0010", "[123m,1][345m,1]567m34sCC5s|EE0000"),
("out_with_replacement_tile", "[1111m,1][345m,1]567m34sCC5s|EE1001", "[1111m,1][345m,1]567m34sCC5s|EE1000"),
("robbing_the_kong", "[123m,1][345m,1]567m34sCC5s|EE0001", "[123m,1][345m,1]567m34sCC5s|EE0000"),
("two_concealed_kongs", "[1111m][2222p]345s678sCC", "[1111m,1][2222p]345s678sCC"),
("all_pungs", "[111m,1][555p,1]333s777m9s9s", "[111m,1][555p,1]333s789m9s9s"),
("half_flush", "[123m,1]456m789mEEE5m5m", "[123m,1]456m789pEEE5m5m"),
("mixed_shifted_chows", "[123m,1]234p345s789m5s5s", "[123m,1]234p456s789m5s5s"),
("all_types", "[123m,1]456p789sEEECC", "[123m,1]456p789sEEE5m5m"),
("melded_hand", "[123m,1][456p,1][789s,1][EEE,1]5m5m", "[123m,1][456p,1][789s,1][EEE,1]5m5m|EE1000"),
("two_dragon_pungs", "[CCC,1][FFF,1]123m456p5s5s", "[CCC,1][EEE,1]123m456p5s5s"),
("mixed_kongs", "[1111m,1][2222p]345s678sCC", "[1111m,1][2222p,1]345s678sCC"),
("outside_hand", "[123m,1][789p,1]111sEEE9m9m", "[123m,1][789p,1]111sEEE5m5m"),
("fully_concealed_hand", "123m456p789s234s5m5m|EE1000", "123m456p789s234s5m5m|EE0000"),
("two_melded_kongs", "[1111m,1][2222p,1]345s678sCC", "[1111m,1][222p,1]345s678sCC"),
("last_of_its_kind", "[123m,1][345m,1]567m34sCC5s|EE0100", "[123m,1][345m,1]567m34sCC5s|EE0000"),
("dragon_pung", "[CCC,1]123m456p789s5s5s", "[NNN,1]123m456p789s5s5s"),
("prevalent_wind", "[SSS,1]123m456p789s5s5s|SE0000", "[SSS,1]123m456p789s5s5s|EE0000"),
("seat_wind", "[SSS,1]123m456p789s5s5s|ES0000", "[SSS,1]123m456p789s5s5s|EE0000"),
("concealed_hand", "123m456p789s234s5m5m", "[123m,1]456p789s234s5m5m"),
("all_chows", "[123m,1]456p789s234s5m5m", "[123m,1]456p789s234sEE"),
("tile_hog", "[123m,1]111m456p789s5s5s", "[234m,1][1111m]456p789s5s5s"),
("double_pung", "[222m,1][222p,1]456s789m5s5s", "[222m,1][333p,1]456s789m5s5s"),
("two_concealed_pungs", "[123m,1][456p,1]222s777m5s5s", "[123m,1][456p,1]222s77m5s5s7m"),
("concealed_kong", "[1111m]123p456s789m5s5s", "[1111m,1]123p456s789m5s5s"),
("all_simples", "[234m,1]456p678s345m5s5s", "[234m,1]456p678s345m9s9s"),
("pure_double_chow", "[123m,1]123m456p789s5s5s", "[123m,1]234m456p789s5s5s"),
("mixed_double_chow", "[123m,1]123p456s789s5m5m", "[123m,1]234p456s789s5m5m"),
("short_straight", "[123m,1]456m789p789s5s5s", "[123m,1]567m789p789s5s5s"),
("two_terminal_chows", "[123m,1]789m456p456s5s5s", "[123m,1]678m456p456s5s5s"),
("pung_of_terminals", "[111m,1]234p456s789s5m5m", "[222m,1]234p456s789s5m5m"),
("melded_kong", "[1111m,1]234p456s789s5m5m", "[1111m]234p456s789s5m5m"),
("one_voided_suit", "[123m,1]456m789p234p5m5m", "[123m,1]456m789p234s5m5m"),
("no_honors", "[123m,1][456m,1]789p111s5m5m", "[123m,1]456m789p234sEE"),
("edge_wait", "[123m,1]456p789s55s12m3m", "[123m,1]456p789s55s23m4m"),
("closed_wait", "[123m,1]456p789s55s13m2m", "[123m,1][456p,1]5677999s8s"),
("pair_wait", "[123m,1]456p789s123s5m5m", "[123m,1]456p789s1234s1s"),
("self_drawn", "[123m,1]456p789s234s5m5m|EE1000", "[123m,1]456p789s234s5m5m|EE0000"),
("flowers", "[123m,1]456p789s234s5m5m|EE0000|ab", "[123m,1]456p789s234s5m5m|EE0000"),
]


def fan_counts(hand: str) -> Counter:
    return Counter({f.id: f.count for f in score(hand).fans})


def test_every_fan_has_a_case() -> None:
    assert sorted(c[0] for c in CASES) == sorted(f.id for f in FANS)


@pytest.mark.parametrize(("fan_id", "hand", "near_miss"), CASES, ids=[c[0] for c in CASES])
def test_fan_scores(fan_id: str, hand: str, near_miss: str) -> None:
    assert fan_id in fan_counts(hand), hand


@pytest.mark.parametrize(("fan_id", "hand", "near_miss"), CASES, ids=[c[0] for c in CASES])
def test_fan_near_miss(fan_id: str, hand: str, near_miss: str) -> None:
    assert fan_id not in fan_counts(near_miss), near_miss


def test_table_values_and_names() -> None:
    by_id = {f.id: f for f in FANS}
    assert len(FANS) == 82  # 81 Green Book fans + Mixed Kongs of the seed-003 chart
    assert by_id["chicken_hand"].value == 8 and by_id["chicken_hand"].name_zh == "无番和"
    assert by_id["two_concealed_kongs"].value == 8
    assert by_id["mixed_kongs"].value == 6
    assert Counter(f.value for f in FANS if f.id != "mixed_kongs") == {
        88: 7, 64: 6, 48: 2, 32: 3, 24: 9, 16: 6, 12: 5, 8: 10, 6: 6, 4: 4, 2: 10, 1: 13}
    assert all(f.name and f.name_zh for f in FANS)
    assert MCR.minimum == 8


def test_chicken_hand_is_eight_and_only_when_nothing_else() -> None:
    result = score("[123m,1][345m,1]678p56sWW7s")
    assert [f.id for f in result.fans] == ["chicken_hand"]
    assert result.total == 8 and result.meets_minimum
    with_flowers = score("[123m,1][345m,1]678p56sWW7s|EE0000|2")
    assert with_flowers.total == 10 and with_flowers.total_without_flowers == 8
    assert "chicken_hand" in {f.id for f in with_flowers.fans}


def test_minimum_does_not_count_flowers() -> None:
    result = score("[123m,1]567p789s234s5m5m|EE1000|abcdefgh")  # All Chows, Self Drawn, Pair Wait + 8 flowers
    assert result.total_without_flowers == 4 and result.total == 12
    assert not result.meets_minimum
    assert result.settlement is None


def test_settlement_discard_and_self_drawn() -> None:
    discard = score("123m456p789s234s5m5m|EE0000|abcdefgh")
    assert discard.meets_minimum
    t = discard.total
    assert discard.settlement["payments"] == {"discarder": 8 + t, "each_other_opponent": 8}
    assert discard.settlement["winner_receives"] == 8 + t + 16
    drawn = score("[123m,1][345m,1]567m34sCC5s|EE1010")
    assert drawn.settlement["payments"] == {"each_opponent": 8 + drawn.total}
    assert drawn.settlement["winner_receives"] == 3 * (8 + drawn.total)


def test_concealed_by_definition_hands_score_self_drawn_not_fully_concealed() -> None:
    for hand in ("1133m4466p2288sEE|EE1000", "19m19p19sESWNCFP1m|EE1000", "111m333p555s777m9p9p|EE1000",
                 "1112345678999m5m|EE1000", "14m258p3sESWNCFP7m|EE1000"):
        fans = fan_counts(hand)
        assert "self_drawn" in fans and "fully_concealed_hand" not in fans, hand
        assert "concealed_hand" not in fan_counts(hand.replace("|EE1000", "")), hand


def test_all_terminals_keeps_triple_pung_and_drops_double_pung() -> None:
    fans = fan_counts("[111m,1]111999p11991s|EE1000")
    assert {"all_terminals", "triple_pung"} <= set(fans)
    assert "double_pung" not in fans and "all_pungs" not in fans
    excluded = {e.id: e.implied_by for e in score("[111m,1]111999p11991s|EE1000").excluded}
    assert excluded["all_terminals_and_honors"] == "all_terminals"


def test_non_repeat_reports_the_implying_fan() -> None:
    result = score("[EEE,2][SSSS,1]WWWNN55pN|EE1000")
    excluded = {e.id: e.implied_by for e in result.excluded}
    assert excluded == {"big_three_winds": "big_four_winds", "all_pungs": "big_four_winds",
                        "pung_of_terminals": "big_four_winds",
                        "prevalent_wind": "big_four_winds", "seat_wind": "big_four_winds"}


def test_account_once_for_set_pair_fans() -> None:
    # score_principles.xml: [123m][789m][123s][789s] gives three 1-fan pair fans, never four
    fans = fan_counts("[123m,1][789m,1]123s789s3p3p")
    assert fans["two_terminal_chows"] + fans["mixed_double_chow"] == 3
    # a spare chow combines once with a used one: Pure Straight + one more pair fan
    fans = fan_counts("[123m,1]123m456m789m5p5p")
    assert fans["pure_straight"] == 1 and fans["pure_double_chow"] == 1
    assert "short_straight" not in fans and "two_terminal_chows" not in fans
    # non-separation: Four Shifted Chows 123 345 567 789 do not also make Two Terminal Chows
    fans = fan_counts("[123p,1][345p,1]567p789p5s5s")
    assert fans["four_shifted_chows"] == 1 and "two_terminal_chows" not in fans


def test_best_arrangement_wins() -> None:
    # score_principles.xml: 555666777p5556s self-drawn 7s: Pure Triple Chow reading (48) beats pungs (47)
    result = score("555666777p5556s7s|EE1000")
    assert result.total == 48
    assert {"pure_triple_chow", "all_fives"} <= {f.id for f in result.fans}


def test_equal_total_alternatives_are_reported() -> None:
    # 6678899s + 7s: 66 789 789 (edge wait) or 678 678 99 (closed wait), both 9 fan
    result = score("[2222s]123p6678899s7s|SN0000|c")
    assert result.total == 9 and len(result.alternatives) == 1
    waits = {f.id for f in result.fans} ^ {f.id for f in result.alternatives[0].fans}
    assert waits == {"edge_wait", "closed_wait"}
    assert result.alternatives[0].arrangement.text() != result.arrangement.text()


def test_wait_fans_need_a_single_wait() -> None:
    assert "edge_wait" in fan_counts("[123m,1]456p789s55s12m3m")
    # 5677999s waits on 4s 7s 8s: winning on 8s is not a closed wait
    assert not {"closed_wait", "edge_wait", "pair_wait"} & set(fan_counts("[123m,1][456p,1]5677999s8s"))
    # 4444666s: formally waits on 4s and 5s (the hand holds all four 4s): winning on 5s is not a wait fan
    assert not {"closed_wait", "edge_wait", "pair_wait"} & set(fan_counts("[123m,1][789p,1]4444666s5s"))
    # only one of the three: pair and closed both possible -> closed
    fans = fan_counts("[123m,1]456m789p234s5m5m")
    assert fans["closed_wait"] == 1 and "pair_wait" not in fans


def test_pung_completed_by_a_discard_is_not_concealed() -> None:
    assert "two_concealed_pungs" in fan_counts("[123m,1][456p,1]222s777m5s5s")
    assert "two_concealed_pungs" not in fan_counts("[123m,1][456p,1]222s77m5s5s7m")
    assert "two_concealed_pungs" in fan_counts("[123m,1][456p,1]222s77m5s5s7m|EE1000")
    # the winning tile read into a concealed chow keeps the pung concealed
    assert "two_concealed_pungs" in fan_counts("[123m,1]222s777m56m55s7m")


def test_last_of_its_kind_implied_by_own_exposed_melds() -> None:
    # three 5s visible in the hand's own melded pung: the 5s won is the last of its kind
    assert "last_of_its_kind" in fan_counts("[555s,1][345m,1]567m34sCC5s")


def test_robbing_the_kong_excludes_last_of_its_kind() -> None:
    result = score("[123m,1][345m,1]567m34sCC5s|EE0101")
    ids = {f.id for f in result.fans}
    assert "robbing_the_kong" in ids and "last_of_its_kind" not in ids
    assert {e.id: e.implied_by for e in result.excluded}["last_of_its_kind"] == "robbing_the_kong"


def test_nine_gates_pung_of_terminals_minus_one() -> None:
    assert fan_counts("1112345678999p2p")["pung_of_terminals"] == 1  # 111 + 999 pungs, one implied
    assert "pung_of_terminals" not in fan_counts("1112345678999p9p|EE1000")


def test_honour_pungs_used_by_wind_and_dragon_fans_are_not_pungs_of_terminals() -> None:
    fans = fan_counts("[EEE,1][NNN,1][CCC,1]111p5s5s|SE0000")  # seat E; N is neither seat nor prevalent
    assert fans["seat_wind"] == 1 and fans["dragon_pung"] == 1
    assert fans["pung_of_terminals"] == 2  # NNN and 111p


def test_flowers_count_each() -> None:
    result = score("[123m,1]456p789s234s5m5m|EE0000|aceg")
    flowers = [f for f in result.fans if f.id == "flowers"]
    assert flowers[0].count == 4 and flowers[0].tiles == [["a"], ["c"], ["e"], ["g"]]


def test_fan_tiles_are_explained() -> None:
    result = score("[EEE,2][SSSS,1]WWWNN55pN|EE1000")
    tiles = {f.id: f.tiles for f in result.fans}
    assert tiles["melded_kong"] == [["S", "S", "S", "S"]]
    assert tiles["self_drawn"] == [["N"]]
    assert sorted(tiles["big_four_winds"][0]) == sorted(list("EEE") + list("SSSS") + list("WWW") + list("NNN"))


def test_not_a_winning_hand() -> None:
    with pytest.raises(FanscanError, match="not a winning hand"):
        score("123m456p789s24689s")


def test_exclusions_among_a_fans_own_sets_are_reported() -> None:
    # 123m 456m 789m without Pure Straight would score two pair fans (account-once: three sets pair at most twice),
    # Short Straight before Two Terminal Chows in table order: Short Straight x2 (123-456, 456-789)
    result = score("[123m,1]123m456m789m5p5p")
    excluded = {e.id: (e.implied_by, e.count) for e in result.excluded}
    assert excluded["short_straight"] == ("pure_straight", 2) and "two_terminal_chows" not in excluded
    assert "pure_double_chow" in {f.id for f in result.fans}  # the spare chow still pairs once

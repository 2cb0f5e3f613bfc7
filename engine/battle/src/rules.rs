//! The battle's rules ([`BattleRules`], one record of the `battle` buffer):
//! their defaults, which the CPU twin tuned, setting one by name from the
//! command line (`--rule NAME=VALUE`), and the checks that refuse rules the
//! passes cannot step with.

use crate::gpu_types::BattleRules;
use horde::Error;

impl Default for BattleRules {
    /// Rules for units about 1.8 m tall standing 1.6 m apart, at 30 steps
    /// per second, tuned with the CPU twin so that the default battles end
    /// within 2 to 5 minutes (`tests/tests/battle.rs`).
    fn default() -> Self {
        let step_seconds = 1.0 / 30.0;
        // Regiments wheel at 20° per second.
        let turn = 20f32.to_radians() * step_seconds;
        BattleRules {
            step_seconds,
            spacing: 1.6,
            separation: 0.9,
            walk_speed: 1.4,
            run_speed: 3.6,
            charge_speed: 4.5,
            charge_ramp_seconds: 3.0,
            reach: 1.3,
            engage_radius: 2.5,
            charge_distance: 25.0,
            steering_gain: 3.0,
            attack_seconds: 5.5,
            damage_min: 3,
            damage_range: 6,
            corpse_seconds: 8.0,
            sink_speed: 0.25,
            sink_depth: 2.5,
            turn_cos: turn.cos(),
            turn_sin: turn.sin(),
            morale_per_casualty: 0.7,
            morale_per_flank_hit: 0.04,
            morale_per_rear_hit: 0.12,
            morale_per_melee_second: 0.0015,
            morale_per_panic_second: 0.03,
            panic_distance: 40.0,
            morale_recovery: 0.02,
            rally_distance: 60.0,
            rally_morale: 0.5,
            flee_distance: 150.0,
            army_break_fraction: 0.3,
            pursue_seconds: 8.0,
            flank_offset: 20.0,
            reserve_seconds: 90.0,
            anchor_lead: 6.0,
            // A 10 % climb slows a unit by 29 %, the steepest (15 %) by 38 %.
            slope_slowing: 4.0,
            pad: 0.0,
        }
    }
}

/// The rules `--rule NAME=VALUE` may set: every one but the derived turn
/// step (`turn_cos`, `turn_sin`, from `step_seconds`).
pub const RULE_NAMES: &[&str] = &[
    "step_seconds",
    "spacing",
    "separation",
    "walk_speed",
    "run_speed",
    "charge_speed",
    "charge_ramp_seconds",
    "reach",
    "engage_radius",
    "charge_distance",
    "steering_gain",
    "attack_seconds",
    "corpse_seconds",
    "sink_speed",
    "sink_depth",
    "morale_per_casualty",
    "morale_per_flank_hit",
    "morale_per_rear_hit",
    "morale_per_melee_second",
    "morale_per_panic_second",
    "panic_distance",
    "morale_recovery",
    "rally_distance",
    "rally_morale",
    "flee_distance",
    "army_break_fraction",
    "pursue_seconds",
    "flank_offset",
    "reserve_seconds",
    "anchor_lead",
    "slope_slowing",
    "damage_min",
    "damage_range",
];

impl BattleRules {
    /// The rules with rule `name` set to `value` (`battle --rule`), for
    /// studying and tuning the battle; [`BattleRules::validate`] judges
    /// the result.
    pub fn with_rule(mut self, name: &str, value: &str) -> Result<BattleRules, Error> {
        let bad = |why: String| Error::Config(format!("battle rule {name}={value}: {why}"));
        match name {
            "damage_min" | "damage_range" => {
                let parsed: u32 = value.parse().map_err(|e| bad(format!("{e}")))?;
                if name == "damage_min" {
                    self.damage_min = parsed;
                } else {
                    self.damage_range = parsed;
                }
            }
            _ => {
                let parsed: f32 = value.parse().map_err(|e| bad(format!("{e}")))?;
                let field = self.float_rule(name).ok_or_else(|| {
                    bad(format!(
                        "no such rule; the rules are {}",
                        RULE_NAMES.join(", ")
                    ))
                })?;
                *field = parsed;
            }
        }
        Ok(self)
    }

    fn float_rule(&mut self, name: &str) -> Option<&mut f32> {
        Some(match name {
            "step_seconds" => &mut self.step_seconds,
            "spacing" => &mut self.spacing,
            "separation" => &mut self.separation,
            "walk_speed" => &mut self.walk_speed,
            "run_speed" => &mut self.run_speed,
            "charge_speed" => &mut self.charge_speed,
            "charge_ramp_seconds" => &mut self.charge_ramp_seconds,
            "reach" => &mut self.reach,
            "engage_radius" => &mut self.engage_radius,
            "charge_distance" => &mut self.charge_distance,
            "steering_gain" => &mut self.steering_gain,
            "attack_seconds" => &mut self.attack_seconds,
            "corpse_seconds" => &mut self.corpse_seconds,
            "sink_speed" => &mut self.sink_speed,
            "sink_depth" => &mut self.sink_depth,
            "morale_per_casualty" => &mut self.morale_per_casualty,
            "morale_per_flank_hit" => &mut self.morale_per_flank_hit,
            "morale_per_rear_hit" => &mut self.morale_per_rear_hit,
            "morale_per_melee_second" => &mut self.morale_per_melee_second,
            "morale_per_panic_second" => &mut self.morale_per_panic_second,
            "panic_distance" => &mut self.panic_distance,
            "morale_recovery" => &mut self.morale_recovery,
            "rally_distance" => &mut self.rally_distance,
            "rally_morale" => &mut self.rally_morale,
            "flee_distance" => &mut self.flee_distance,
            "army_break_fraction" => &mut self.army_break_fraction,
            "pursue_seconds" => &mut self.pursue_seconds,
            "flank_offset" => &mut self.flank_offset,
            "reserve_seconds" => &mut self.reserve_seconds,
            "anchor_lead" => &mut self.anchor_lead,
            "slope_slowing" => &mut self.slope_slowing,
            _ => return None,
        })
    }
}

impl BattleRules {
    /// Refuses rules the step cannot follow stably.
    pub fn validate(&self) -> Result<(), Error> {
        let positive = [
            ("step_seconds", self.step_seconds),
            ("spacing", self.spacing),
            ("separation", self.separation),
            ("walk_speed", self.walk_speed),
            ("run_speed", self.run_speed),
            ("charge_speed", self.charge_speed),
            ("charge_ramp_seconds", self.charge_ramp_seconds),
            ("reach", self.reach),
            ("engage_radius", self.engage_radius),
            ("steering_gain", self.steering_gain),
            ("attack_seconds", self.attack_seconds),
            ("sink_speed", self.sink_speed),
            ("army_break_fraction", self.army_break_fraction),
        ];
        for (name, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::Config(format!(
                    "battle rule {name} = {value} must be a finite number > 0"
                )));
            }
        }
        let not_negative = [
            ("charge_distance", self.charge_distance),
            ("corpse_seconds", self.corpse_seconds),
            ("sink_depth", self.sink_depth),
            ("morale_per_casualty", self.morale_per_casualty),
            ("morale_per_flank_hit", self.morale_per_flank_hit),
            ("morale_per_rear_hit", self.morale_per_rear_hit),
            ("morale_per_melee_second", self.morale_per_melee_second),
            ("morale_per_panic_second", self.morale_per_panic_second),
            ("panic_distance", self.panic_distance),
            ("morale_recovery", self.morale_recovery),
            ("rally_distance", self.rally_distance),
            ("rally_morale", self.rally_morale),
            ("flee_distance", self.flee_distance),
            ("pursue_seconds", self.pursue_seconds),
            ("flank_offset", self.flank_offset),
            ("reserve_seconds", self.reserve_seconds),
            ("anchor_lead", self.anchor_lead),
            ("slope_slowing", self.slope_slowing),
        ];
        for (name, value) in not_negative {
            if !(value.is_finite() && value >= 0.0) {
                return Err(Error::Config(format!(
                    "battle rule {name} = {value} must be a finite number ≥ 0"
                )));
            }
        }
        if self.step_seconds > 0.1 {
            return Err(Error::Config(format!(
                "battle step of {} s is too long (at most 0.1 s)",
                self.step_seconds
            )));
        }
        // Proportional steering overshoots when one step covers more than
        // the distance left.
        if self.steering_gain * self.step_seconds >= 1.0 {
            return Err(Error::Config(format!(
                "steering gain {} × step {} s must stay below 1",
                self.steering_gain, self.step_seconds
            )));
        }
        // The grid finds neighbours within one cell.
        if self.reach > self.engage_radius || self.separation > self.engage_radius {
            return Err(Error::Config(format!(
                "reach {} and separation {} must not exceed the engage radius {}",
                self.reach, self.separation, self.engage_radius
            )));
        }
        let turn = self.turn_cos * self.turn_cos + self.turn_sin * self.turn_sin;
        if !((turn - 1.0).abs() < 1e-3 && self.turn_cos > 0.0 && self.turn_sin > 0.0) {
            return Err(Error::Config(format!(
                "turn_cos {} and turn_sin {} must be the cosine and sine of a turn step \
                 between 0 and 90°",
                self.turn_cos, self.turn_sin
            )));
        }
        if self.damage_min == 0 && self.damage_range <= 1 {
            return Err(Error::Config(
                "battle damage must be able to exceed 0".into(),
            ));
        }
        if self.damage_range == 0 {
            return Err(Error::Config("battle damage_range must be ≥ 1".into()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_set_by_name_and_bad_ones_are_refused() {
        let rules = BattleRules::default()
            .with_rule("slope_slowing", "2.5")
            .and_then(|r| r.with_rule("damage_range", "9"))
            .expect("rules");
        assert_eq!((rules.slope_slowing, rules.damage_range), (2.5, 9));
        assert!(rules.validate().is_ok());
        for (name, value, says) in [
            ("bogus", "1", "no such rule"),
            ("turn_cos", "1", "no such rule"),
            ("walk_speed", "fast", "invalid float"),
            ("damage_min", "-3", "invalid digit"),
        ] {
            let error = BattleRules::default()
                .with_rule(name, value)
                .expect_err(name)
                .to_string();
            assert!(error.contains(name) && error.contains(says), "{error}");
        }
        let negative = BattleRules::default()
            .with_rule("walk_speed", "-1")
            .expect("parsed");
        assert!(negative.validate().is_err());
        // Every name it lists, it sets.
        for name in RULE_NAMES {
            assert!(
                BattleRules::default().with_rule(name, "1").is_ok(),
                "{name}"
            );
        }
    }
}

//! A whole battle on the CPU twin, for tuning the rules without a GPU:
//! prints a line every 10 s of battle time and the outcome.
//!
//!     cargo run -p horde-battle --example cpu_battle -- 10000 1 300
//!
//! Arguments: units (10000), seed (1), seconds at most (300), then any
//! `rule=value` to try other rules (`attack_seconds=2`,
//! `morale_per_casualty=1`, ...; `BattleRules::with_rule`, as `battle
//! --rule`).

use horde_battle::config::{STATE_ENGAGED, STATE_FLED, STATE_ROUTING};
use horde_battle::fronts::melee_fronts;
use horde_battle::plan::battle_plan;
use horde_battle::reference::battle::CpuBattle;
use horde_battle::BattleRules;

fn main() -> Result<(), horde::Error> {
    let mut args = std::env::args().skip(1);
    let mut next = |default: u64| args.next().and_then(|a| a.parse().ok()).unwrap_or(default);
    let (units, seed, seconds) = (next(10_000) as u32, next(1), next(300) as f32);
    let mut rules = BattleRules::default();
    for setting in std::env::args().skip(4) {
        let Some((name, value)) = setting.split_once('=') else {
            eprintln!("{setting}: expected rule=value");
            continue;
        };
        rules = rules.with_rule(name, value)?;
    }
    rules.validate()?;
    let plan = battle_plan(units, seed, rules);
    println!(
        "{units} units, {} regiments, seed {seed}",
        plan.setup.regiments.len()
    );
    let mut battle = CpuBattle::new(&plan.setup, plan.placements())?;
    let every = (10.0 / battle.header.rules.step_seconds).round() as u32;
    let started = std::time::Instant::now();
    while battle.seconds() < seconds {
        battle.step();
        let counts = *battle.counts();
        let done = counts.standing.contains(&0);
        if battle.step % every == 0 || done {
            let table = battle.regiment_table();
            let by = |army: u32, states: &[u32]| {
                table
                    .iter()
                    .filter(|r| r.army == army && states.contains(&r.state))
                    .count()
            };
            let totals = battle.header.totals;
            println!(
                "{:6.1} s alive {:?} standing {:?} engaged {}/{} routing {}/{} fronts {} \
                 flank {} rear {} routs {} rallies {}",
                battle.seconds(),
                counts.alive,
                counts.standing,
                by(0, &[STATE_ENGAGED]),
                by(1, &[STATE_ENGAGED]),
                by(0, &[STATE_ROUTING, STATE_FLED]),
                by(1, &[STATE_ROUTING, STATE_FLED]),
                melee_fronts(table),
                totals.flank_attacks,
                totals.rear_attacks,
                totals.routs,
                totals.rallies
            );
        }
        if done {
            println!("ended at {:.1} s", battle.seconds());
            break;
        }
    }
    println!("{:.1} s of CPU", started.elapsed().as_secs_f32());
    Ok(())
}

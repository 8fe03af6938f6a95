//! Notifications that found no waiter, counted per site as the saved results hold them,
//! and the digit grouping their summary is written with.

use serde::{Deserialize, Serialize};

/// Notifications that found no waiter, counted: a busy fifo loses thousands, so a list
/// with one entry per notification would fill screens and files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LostNotifications {
    /// Notifications lost, over all sites.
    pub total: u64,
    /// (site, how many), by site.
    pub sites: Vec<(u32, u64)>,
}

impl LostNotifications {
    /// Counts the sites of lost notifications, one entry per notification.
    pub fn count(sites: &[u32]) -> LostNotifications {
        let mut per_site = std::collections::BTreeMap::<u32, u64>::new();
        for site in sites {
            *per_site.entry(*site).or_default() += 1;
        }
        LostNotifications {
            total: sites.len() as u64,
            sites: per_site.into_iter().collect(),
        }
    }

    /// Whether no notification was lost.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// `169,401 notifies with no waiter, 3 sites: e.notify() @ a.cpp:12 (169,000), …`:
    /// the count, then at most `MAX_SITES_NAMED` sites with the most, `label` naming a site.
    pub fn summary(&self, label: &dyn Fn(u32) -> String) -> String {
        const MAX_SITES_NAMED: usize = 5;
        let mut sites = self.sites.clone();
        sites.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let named: Vec<String> = sites
            .iter()
            .take(MAX_SITES_NAMED)
            .map(|(site, n)| format!("{} ({})", label(*site), thousands(*n)))
            .collect();
        let more = if sites.len() > MAX_SITES_NAMED {
            format!(", {} more sites", sites.len() - MAX_SITES_NAMED)
        } else {
            String::new()
        };
        format!(
            "{} {} with no waiter, {} {}: {}{more}",
            thousands(self.total),
            if self.total == 1 {
                "notify"
            } else {
                "notifies"
            },
            sites.len(),
            if sites.len() == 1 { "site" } else { "sites" },
            named.join(", ")
        )
    }
}

/// Reads the summary, or the list of one site per notification older versions wrote.
impl<'de> Deserialize<'de> for LostNotifications {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Saved {
            Summary { total: u64, sites: Vec<(u32, u64)> },
            Each(Vec<u32>),
        }
        Ok(match Saved::deserialize(d)? {
            Saved::Summary { total, sites } => LostNotifications { total, sites },
            Saved::Each(sites) => LostNotifications::count(&sites),
        })
    }
}

/// `169401` → `169,401`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

//! The reference feature-transformer accumulator (i32, exact by construction); the search uses
//! the i16 accumulator stack of [`super::stack`], checked against this one.

use super::network::Network;

/// One perspective's accumulator: `ft_bias + sum of active FT rows`, kept in i32 so that
/// incremental updates are exact and order-independent (at most a few hundred features of
/// |w| <= 32767 are ever active, far from overflow; wrapping ops keep the loops vectorisable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accumulator {
    values: Vec<i32>,
}

impl Accumulator {
    /// An accumulator holding only the FT bias (no active features).
    pub fn new(net: &Network) -> Accumulator {
        Accumulator { values: net.ft_bias().iter().map(|&b| i32::from(b)).collect() }
    }

    /// Recomputes from scratch for the given active features.
    ///
    /// # Panics
    /// Panics if a feature index is out of range or the network width differs.
    pub fn refresh(&mut self, net: &Network, features: &[u32]) {
        assert_eq!(self.values.len(), net.ft_size(), "accumulator width does not match network");
        for (v, &b) in self.values.iter_mut().zip(net.ft_bias()) {
            *v = i32::from(b);
        }
        for &f in features {
            self.add_feature(net, f);
        }
    }

    /// Adds one feature's FT row.
    ///
    /// # Panics
    /// Panics if `feature` is out of range.
    pub fn add_feature(&mut self, net: &Network, feature: u32) {
        for (v, &w) in self.values.iter_mut().zip(net.ft_row(feature)) {
            *v = v.wrapping_add(i32::from(w));
        }
    }

    /// Removes one feature's FT row.
    ///
    /// # Panics
    /// Panics if `feature` is out of range.
    pub fn remove_feature(&mut self, net: &Network, feature: u32) {
        for (v, &w) in self.values.iter_mut().zip(net.ft_row(feature)) {
            *v = v.wrapping_sub(i32::from(w));
        }
    }

    /// Raw accumulator values (scale `QA`).
    pub fn values(&self) -> &[i32] {
        &self.values
    }
}

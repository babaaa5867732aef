"""Thermodynamics: the property package (equilibrium, enthalpy, density) and its models; no flowsheet."""

"""Alerts: who follows which agent or signal model, what of it moved past its interval
in a snapshot, and the bookkeeping that sends each account one message per snapshot."""

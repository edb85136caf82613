DROP TABLE mnemo_risk_lowerings;

/* Real answers of the service, written by scripts/capture-openapi-examples.mjs: do not edit by hand. */
export const EXAMPLES: Record<string, unknown> = {
  "me": {
    "data": {
      "workspace": {
        "id": "ws_ug1MgsFPOUc5vOcw",
        "name": "Acme Recruiting"
      },
      "mode": "live",
      "sandbox": {
        "limit": 25,
        "windowDays": 30,
        "remaining": 25
      }
    }
  },
  "tests": {
    "data": [
      {
        "slug": "javascript-coding",
        "name": "JavaScript Coding",
        "type": "programming",
        "format": "code",
        "minutes": 45,
        "timed": true,
        "questionCount": 2,
        "description": "Candidates solve two practical JavaScript tasks in a live editor, graded automatically against hidden test cases."
      },
      {
        "slug": "python-coding",
        "name": "Python Coding",
        "type": "programming",
        "format": "code",
        "minutes": 45,
        "timed": true,
        "questionCount": 2,
        "description": "Candidates write Python functions to solve two realistic problems, graded on correctness against test cases."
      }
    ],
    "meta": {
      "total": 2
    }
  },
  "assessment": {
    "data": {
      "id": "asm_meEdDa2ILKB8jl3Z",
      "name": "Backend engineer, autumn intake",
      "status": "active",
      "createdAt": "2026-11-27T18:37:05.882Z",
      "deadline": null,
      "tests": [
        {
          "slug": "numerical-reasoning",
          "name": "Numerical Reasoning",
          "type": "library"
        },
        {
          "slug": "big-five-personality",
          "name": "Big Five Personality (OCEAN)",
          "type": "library"
        }
      ],
      "candidateCount": 1,
      "inviteUrl": "https://app.example.com/join/asm_meEdDa2ILKB8jl3Z/jFPFgnRIx-Rh1SrAmLb-IjA52iZUHYg8"
    }
  },
  "assessments": {
    "data": [
      {
        "id": "asm_meEdDa2ILKB8jl3Z",
        "name": "Backend engineer, autumn intake",
        "status": "active",
        "createdAt": "2026-11-27T18:37:05.882Z",
        "deadline": null,
        "tests": [
          {
            "slug": "numerical-reasoning",
            "name": "Numerical Reasoning",
            "type": "library"
          },
          {
            "slug": "big-five-personality",
            "name": "Big Five Personality (OCEAN)",
            "type": "library"
          }
        ],
        "candidateCount": 1,
        "inviteUrl": "https://app.example.com/join/asm_meEdDa2ILKB8jl3Z/jFPFgnRIx-Rh1SrAmLb-IjA52iZUHYg8"
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "invitations": {
    "data": [
      {
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "status": "invited",
        "reason": null,
        "candidateId": null,
        "invitationUrl": "https://app.example.com/invitations/asm_meEdDa2ILKB8jl3Z/6zq0NJwc-iyATRBeePND_1kMBfyBI7Lu"
      },
      {
        "email": "not-an-address",
        "firstName": "Bo",
        "surname": "",
        "status": "failed",
        "reason": "invalid_email",
        "candidateId": null,
        "invitationUrl": null
      }
    ],
    "meta": {
      "assessmentId": "asm_meEdDa2ILKB8jl3Z",
      "invited": 1,
      "alreadyInvited": 0,
      "failed": 1
    }
  },
  "candidate": {
    "data": {
      "id": "cand_vm1njgK3IgAiDsMl",
      "email": "ann.lee@example.com",
      "firstName": "Ann",
      "surname": "Lee",
      "createdAt": "2026-11-27T18:37:05.947Z",
      "updatedAt": "2026-11-27T18:37:06.008Z",
      "reportUrl": "https://app.example.com/candidates/cand_vm1njgK3IgAiDsMl/report",
      "assessments": [
        {
          "id": "asm_meEdDa2ILKB8jl3Z",
          "name": "Backend engineer, autumn intake",
          "status": "completed",
          "completedAt": "2026-11-27T18:37:06.008Z",
          "unlocked": false,
          "results": [
            {
              "id": "res_xodPcZBb3xIoEMwJ",
              "testSlug": "numerical-reasoning",
              "testName": "Numerical Reasoning",
              "testType": "library",
              "completedAt": "2026-11-27T18:37:05.974Z",
              "unlocked": true,
              "unlockedAt": "2026-11-27T18:37:05.991Z",
              "scorePercentage": 82.5,
              "speedCompleted": 1260,
              "questionsAnswered": 24,
              "questionsCorrect": 20,
              "questionsIncorrect": 4,
              "questionsTotal": 24,
              "result": "pass",
              "scores": null
            },
            {
              "id": "res_BxSMoxqlm45P9fEm",
              "testSlug": "big-five-personality",
              "testName": "Big Five Personality (OCEAN)",
              "testType": "library",
              "completedAt": "2026-11-27T18:37:06.008Z",
              "unlocked": false,
              "unlockedAt": null,
              "scorePercentage": null,
              "speedCompleted": null,
              "questionsAnswered": null,
              "questionsCorrect": null,
              "questionsIncorrect": null,
              "questionsTotal": null,
              "result": null,
              "scores": null
            }
          ]
        }
      ]
    }
  },
  "candidates": {
    "data": [
      {
        "id": "cand_vm1njgK3IgAiDsMl",
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "createdAt": "2026-11-27T18:37:05.947Z",
        "updatedAt": "2026-11-27T18:37:06.008Z",
        "reportUrl": "https://app.example.com/candidates/cand_vm1njgK3IgAiDsMl/report",
        "assessments": [
          {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake",
            "status": "completed",
            "completedAt": "2026-11-27T18:37:06.008Z",
            "unlocked": false,
            "results": [
              {
                "id": "res_xodPcZBb3xIoEMwJ",
                "testSlug": "numerical-reasoning",
                "testName": "Numerical Reasoning",
                "testType": "library",
                "completedAt": "2026-11-27T18:37:05.974Z",
                "unlocked": true,
                "unlockedAt": "2026-11-27T18:37:05.991Z",
                "scorePercentage": 82.5,
                "speedCompleted": 1260,
                "questionsAnswered": 24,
                "questionsCorrect": 20,
                "questionsIncorrect": 4,
                "questionsTotal": 24,
                "result": "pass",
                "scores": null
              },
              {
                "id": "res_BxSMoxqlm45P9fEm",
                "testSlug": "big-five-personality",
                "testName": "Big Five Personality (OCEAN)",
                "testType": "library",
                "completedAt": "2026-11-27T18:37:06.008Z",
                "unlocked": false,
                "unlockedAt": null,
                "scorePercentage": null,
                "speedCompleted": null,
                "questionsAnswered": null,
                "questionsCorrect": null,
                "questionsIncorrect": null,
                "questionsTotal": null,
                "result": null,
                "scores": null
              }
            ]
          }
        ]
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "results": {
    "data": [
      {
        "id": "res_xodPcZBb3xIoEMwJ",
        "testSlug": "numerical-reasoning",
        "testName": "Numerical Reasoning",
        "testType": "library",
        "completedAt": "2026-11-27T18:37:05.974Z",
        "unlocked": true,
        "unlockedAt": "2026-11-27T18:37:05.991Z",
        "scorePercentage": 82.5,
        "speedCompleted": 1260,
        "questionsAnswered": 24,
        "questionsCorrect": 20,
        "questionsIncorrect": 4,
        "questionsTotal": 24,
        "result": "pass",
        "scores": null,
        "candidate": {
          "id": "cand_vm1njgK3IgAiDsMl",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_meEdDa2ILKB8jl3Z",
          "name": "Backend engineer, autumn intake"
        },
        "reportUrl": "https://app.example.com/candidates/cand_vm1njgK3IgAiDsMl/report"
      },
      {
        "id": "res_BxSMoxqlm45P9fEm",
        "testSlug": "big-five-personality",
        "testName": "Big Five Personality (OCEAN)",
        "testType": "library",
        "completedAt": "2026-11-27T18:37:06.008Z",
        "unlocked": false,
        "unlockedAt": null,
        "scorePercentage": null,
        "speedCompleted": null,
        "questionsAnswered": null,
        "questionsCorrect": null,
        "questionsIncorrect": null,
        "questionsTotal": null,
        "result": null,
        "scores": null,
        "candidate": {
          "id": "cand_vm1njgK3IgAiDsMl",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_meEdDa2ILKB8jl3Z",
          "name": "Backend engineer, autumn intake"
        },
        "reportUrl": "https://app.example.com/candidates/cand_vm1njgK3IgAiDsMl/report"
      }
    ],
    "meta": {
      "nextCursor": null
    }
  },
  "completions": {
    "data": [
      {
        "id": "cand_dBLdQuEXFDxbXtRp:asm_3i9U0wlhI3d3dLrP",
        "candidate": {
          "id": "cand_dBLdQuEXFDxbXtRp",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_3i9U0wlhI3d3dLrP",
          "name": "Backend engineer, autumn intake"
        },
        "completedAt": "2026-11-28T22:39:16.983Z",
        "updatedAt": "2026-11-28T22:39:18.542Z",
        "unlocked": true,
        "results": [
          {
            "id": "res_FabO75qglSCEIzSo",
            "testSlug": "numerical-reasoning",
            "testName": "Numerical Reasoning",
            "testType": "library",
            "completedAt": "2026-11-28T22:39:16.926Z",
            "unlocked": true,
            "unlockedAt": "2026-11-28T22:39:16.957Z",
            "scorePercentage": 82.5,
            "speedCompleted": 1260,
            "questionsAnswered": 24,
            "questionsCorrect": 20,
            "questionsIncorrect": 4,
            "questionsTotal": 24,
            "result": "pass",
            "scores": null
          },
          {
            "id": "res_UDKFprylyKeqX4j9",
            "testSlug": "big-five-personality",
            "testName": "Big Five Personality (OCEAN)",
            "testType": "library",
            "completedAt": "2026-11-28T22:39:16.983Z",
            "unlocked": true,
            "unlockedAt": "2026-11-28T22:39:18.542Z",
            "scorePercentage": 64,
            "speedCompleted": 1260,
            "questionsAnswered": 24,
            "questionsCorrect": 20,
            "questionsIncorrect": 4,
            "questionsTotal": 24,
            "result": null,
            "scores": {
              "openness": 0.71,
              "neuroticism": 0.22,
              "extraversion": 0.38,
              "agreeableness": 0.59,
              "conscientiousness": 0.64
            }
          }
        ],
        "reportUrl": "https://app.example.com/candidates/cand_dBLdQuEXFDxbXtRp/report"
      }
    ]
  },
  "legacyCandidates": {
    "count": 1,
    "next": null,
    "previous": null,
    "results": [
      {
        "id": "cand_vm1njgK3IgAiDsMl",
        "email": "ann.lee@example.com",
        "first_name": "Ann",
        "last_name": "Lee",
        "created_at": "2026-11-27T18:37:05.947Z",
        "updated_at": "2026-11-27T18:37:06.008Z",
        "report_url": "https://app.example.com/candidates/cand_vm1njgK3IgAiDsMl/report",
        "assessments": [
          {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake",
            "status": "completed",
            "completed_at": "2026-11-27T18:37:06.008Z",
            "results": [
              {
                "id": "res_xodPcZBb3xIoEMwJ",
                "test_slug": "numerical-reasoning",
                "test_name": "Numerical Reasoning",
                "completed_at": "2026-11-27T18:37:05.974Z",
                "unlocked": true,
                "score_percentage": 82.5
              },
              {
                "id": "res_BxSMoxqlm45P9fEm",
                "test_slug": "big-five-personality",
                "test_name": "Big Five Personality (OCEAN)",
                "completed_at": "2026-11-27T18:37:06.008Z",
                "unlocked": false,
                "score_percentage": null
              }
            ]
          }
        ]
      }
    ]
  },
  "events": {
    "data": [
      {
        "id": "f925757d-e044-472d-818c-07a70dff190f",
        "event": "candidateInvited",
        "createdAt": "2026-11-27T18:37:05.918Z",
        "workspaceId": "ws_ug1MgsFPOUc5vOcw",
        "data": {
          "assessment": {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake"
          },
          "invitation": {
            "email": "ann.lee@example.com",
            "firstName": "Ann",
            "surname": "Lee",
            "status": "invited",
            "reason": null,
            "candidateId": null,
            "invitationUrl": "https://app.example.com/invitations/asm_meEdDa2ILKB8jl3Z/6zq0NJwc-iyATRBeePND_1kMBfyBI7Lu"
          }
        }
      },
      {
        "id": "237e0f41-4d79-42ec-b4d3-8a566a310345",
        "event": "candidateCreated",
        "createdAt": "2026-11-27T18:37:05.947Z",
        "workspaceId": "ws_ug1MgsFPOUc5vOcw",
        "data": {
          "candidate": {
            "id": "cand_vm1njgK3IgAiDsMl",
            "email": "ann.lee@example.com",
            "firstName": "Ann",
            "surname": "Lee"
          }
        }
      },
      {
        "id": "98cd0b41-2b3b-4ca4-8b1b-1ba390f4b49f",
        "event": "assessmentStarted",
        "createdAt": "2026-11-27T18:37:05.964Z",
        "workspaceId": "ws_ug1MgsFPOUc5vOcw",
        "data": {
          "candidate": {
            "id": "cand_vm1njgK3IgAiDsMl",
            "email": "ann.lee@example.com",
            "firstName": "Ann",
            "surname": "Lee"
          },
          "assessment": {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake"
          },
          "startedAt": "2026-11-27T18:37:05.964Z"
        }
      },
      {
        "id": "1b8af1d3-5b60-416b-9332-dcba0a8530fa",
        "event": "testCompleted",
        "createdAt": "2026-11-27T18:37:05.974Z",
        "workspaceId": "ws_ug1MgsFPOUc5vOcw",
        "data": {
          "candidate": {
            "id": "cand_vm1njgK3IgAiDsMl",
            "email": "ann.lee@example.com",
            "firstName": "Ann",
            "surname": "Lee"
          },
          "assessment": {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake"
          },
          "result": {
            "id": "res_xodPcZBb3xIoEMwJ",
            "testSlug": "numerical-reasoning",
            "testName": "Numerical Reasoning",
            "testType": "library",
            "completedAt": "2026-11-27T18:37:05.974Z",
            "unlocked": false,
            "unlockedAt": null,
            "scorePercentage": null,
            "speedCompleted": null,
            "questionsAnswered": null,
            "questionsCorrect": null,
            "questionsIncorrect": null,
            "questionsTotal": null,
            "result": null,
            "scores": null
          }
        }
      },
      {
        "id": "51d5b98e-c12a-4610-8b3a-08385ed3fb67",
        "event": "resultUnlocked",
        "createdAt": "2026-11-27T18:37:05.991Z",
        "workspaceId": "ws_ug1MgsFPOUc5vOcw",
        "data": {
          "candidate": {
            "id": "cand_vm1njgK3IgAiDsMl",
            "email": "ann.lee@example.com",
            "firstName": "Ann",
            "surname": "Lee"
          },
          "assessment": {
            "id": "asm_meEdDa2ILKB8jl3Z",
            "name": "Backend engineer, autumn intake"
          },
          "result": {
            "id": "res_xodPcZBb3xIoEMwJ",
            "testSlug": "numerical-reasoning",
            "testName": "Numerical Reasoning",
            "testType": "library",
            "completedAt": "2026-11-27T18:37:05.974Z",
            "unlocked": true,
            "unlockedAt": "2026-11-27T18:37:05.991Z",
            "scorePercentage": 82.5,
            "speedCompleted": 1260,
            "questionsAnswered": 24,
            "questionsCorrect": 20,
            "questionsIncorrect": 4,
            "questionsTotal": 24,
            "result": "pass",
            "scores": null
          }
        }
      }
    ],
    "meta": {
      "nextCursor": "qnkvSjaShSp071JPvfs6gn9uJ1so7TDiu8zvUuGSizV7InMiOiIwMDAwMDAwMDAwMDAwMDAwMDAxMiIsImkiOiJ1bmxvY2tlZDpyZXNfeG9kUGNaQmIzeElvRU13SiIsImtpbmQiOiJldmVudHMiLCJmaWx0ZXJzIjoiUkJOdm8xV3paNG9SUnEwVzktaGtucCIsInNjb3BlIjoiV1JkdWZpWDlvcnBjVVJ6RjY1VXBPVyJ9",
      "hasMore": true
    }
  },
  "event": {
    "data": {
      "id": "8e8d1c7e-f6f2-4616-a70e-22d1b689c2ce",
      "event": "assessmentCompleted",
      "createdAt": "2026-11-28T22:39:16.983Z",
      "workspaceId": "ws_RUmjEmTXfWctG5fx",
      "data": {
        "id": "cand_dBLdQuEXFDxbXtRp:asm_3i9U0wlhI3d3dLrP",
        "candidate": {
          "id": "cand_dBLdQuEXFDxbXtRp",
          "email": "ann.lee@example.com",
          "firstName": "Ann",
          "surname": "Lee"
        },
        "assessment": {
          "id": "asm_3i9U0wlhI3d3dLrP",
          "name": "Backend engineer, autumn intake"
        },
        "completedAt": "2026-11-28T22:39:16.983Z",
        "updatedAt": "2026-11-28T22:39:16.983Z",
        "unlocked": false,
        "results": [
          {
            "id": "res_FabO75qglSCEIzSo",
            "testSlug": "numerical-reasoning",
            "testName": "Numerical Reasoning",
            "testType": "library",
            "completedAt": "2026-11-28T22:39:16.926Z",
            "unlocked": true,
            "unlockedAt": "2026-11-28T22:39:16.957Z",
            "scorePercentage": 82.5,
            "speedCompleted": 1260,
            "questionsAnswered": 24,
            "questionsCorrect": 20,
            "questionsIncorrect": 4,
            "questionsTotal": 24,
            "result": "pass",
            "scores": null
          },
          {
            "id": "res_UDKFprylyKeqX4j9",
            "testSlug": "big-five-personality",
            "testName": "Big Five Personality (OCEAN)",
            "testType": "library",
            "completedAt": "2026-11-28T22:39:16.983Z",
            "unlocked": false,
            "unlockedAt": null,
            "scorePercentage": null,
            "speedCompleted": null,
            "questionsAnswered": null,
            "questionsCorrect": null,
            "questionsIncorrect": null,
            "questionsTotal": null,
            "result": null,
            "scores": null
          }
        ],
        "reportUrl": "https://app.example.com/candidates/cand_dBLdQuEXFDxbXtRp/report"
      }
    }
  },
  "invitationsList": {
    "data": [
      {
        "email": "bo.chen@example.com",
        "firstName": "Bo",
        "surname": "Chen",
        "status": "pending",
        "invitedAt": "2026-11-28T22:38:20.228Z",
        "invitationUrl": "https://app.example.com/invitations/asm_WNAVWB8lzuDm9iXb/rST_a2rTrZ77YGc4Xky_GXuxt86mBFv7",
        "candidateId": null
      },
      {
        "email": "ann.lee@example.com",
        "firstName": "Ann",
        "surname": "Lee",
        "status": "registered",
        "invitedAt": "2026-11-28T22:38:18.986Z",
        "invitationUrl": null,
        "candidateId": "cand_EVxG0C1WW0gUwZUW"
      }
    ],
    "meta": {
      "nextCursor": null
    }
  }
};
